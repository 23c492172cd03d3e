-- tlp.lua: Wireshark dissector for mkeysim's PCIe TLP captures (package
-- tb/tlpcap: pcap files of link type USER0, 147, one TLP a record).
--
-- Use:
--   tshark -X lua_script:scripts/tlp.lua -r run.tlp.pcap
--   tshark -X lua_script:scripts/tlp.lua -r run.tlp.pcap -V          (every field)
--   tshark -X lua_script:scripts/tlp.lua -r run.tlp.pcap \
--       -Y 'pcietlp.type == "MRd" && pcietlp.addr >= 0x100000000' \
--       -T fields -e frame.number -e pcietlp.tag -e pcietlp.addr
--   wireshark -X lua_script:scripts/tlp.lua run.tlp.pcap
-- or, for every Wireshark session, copy this file into the personal Lua
-- plugins folder (Help > About Wireshark > Folders > Personal Lua Plugins,
-- ~/.local/lib/wireshark/plugins on Linux) and open the capture.
--
-- The dissector takes over link type USER0 (it replaces what Wireshark's
-- "DLT User" preferences say for USER0 while it is loaded).
--
-- A record is a 4-byte pseudo-header, then the TLP as the PCIe base
-- specification puts it on the wire (header and data, no framing):
--   byte 0  version (1)
--   byte 1  direction: 0 upstream (device to root complex),
--                      1 downstream (root complex to device)
--   byte 2-3 reserved (0)
-- tb/tlpcap/doc.go describes the whole file format. The frame time is the
-- simulated time: cycle x clock period.
--
-- Fields (all under the protocol pcietlp, usable in display filters):
--   pcietlp.version, pcietlp.dir, pcietlp.reserved,
--   pcietlp.type (MRd, MWr, CplD, Cpl, as mkeysim's rtl/pcie names them),
--   pcietlp.fmt, pcietlp.type_code, pcietlp.tc, pcietlp.header_len,
--   pcietlp.length (Length in DW, 0 on the wire read as 1024),
--   pcietlp.requester, pcietlp.tag (10 bits: T9, T8 and Tag[7:0]),
--   requests: pcietlp.addr (32- or 64-bit), pcietlp.first_be, pcietlp.last_be;
--   completions: pcietlp.completer, pcietlp.status, pcietlp.byte_count
--   (0 on the wire read as 4096), pcietlp.lower_addr;
--   pcietlp.data_len (payload bytes), pcietlp.data.

local tlp = Proto("pcietlp", "PCIe TLP (mkeysim capture)")

local dir_names = { [0] = "Upstream (device to root complex)", [1] = "Downstream (root complex to device)" }
local fmt_names = {
	[0] = "3DW header, no data", [1] = "4DW header, no data",
	[2] = "3DW header, with data", [3] = "4DW header, with data", [4] = "TLP prefix",
}
local status_names = { [0] = "SC", [1] = "UR", [2] = "CRS", [4] = "CA" }

local f = {
	version    = ProtoField.uint8("pcietlp.version", "Version", base.DEC),
	dir        = ProtoField.uint8("pcietlp.dir", "Direction", base.DEC, dir_names),
	reserved   = ProtoField.uint16("pcietlp.reserved", "Reserved", base.HEX),
	type       = ProtoField.string("pcietlp.type", "Type"),
	fmt        = ProtoField.uint8("pcietlp.fmt", "Fmt", base.DEC, fmt_names, 0xe0),
	type_code  = ProtoField.uint8("pcietlp.type_code", "Type code", base.HEX, nil, 0x1f),
	tc         = ProtoField.uint8("pcietlp.tc", "Traffic class", base.DEC, nil, 0x70),
	header_len = ProtoField.uint8("pcietlp.header_len", "Header length (bytes)", base.DEC),
	length     = ProtoField.uint16("pcietlp.length", "Length (DW)", base.DEC),
	requester  = ProtoField.uint16("pcietlp.requester", "Requester ID", base.HEX),
	tag        = ProtoField.uint16("pcietlp.tag", "Tag", base.DEC),
	addr       = ProtoField.uint64("pcietlp.addr", "Address", base.HEX),
	first_be   = ProtoField.uint8("pcietlp.first_be", "First DW BE", base.HEX, nil, 0x0f),
	last_be    = ProtoField.uint8("pcietlp.last_be", "Last DW BE", base.HEX, nil, 0xf0),
	completer  = ProtoField.uint16("pcietlp.completer", "Completer ID", base.HEX),
	status     = ProtoField.uint8("pcietlp.status", "Completion status", base.DEC, status_names, 0xe0),
	byte_count = ProtoField.uint16("pcietlp.byte_count", "Byte count", base.DEC),
	lower_addr = ProtoField.uint8("pcietlp.lower_addr", "Lower address", base.HEX, nil, 0x7f),
	data_len   = ProtoField.uint32("pcietlp.data_len", "Data length (bytes)", base.DEC),
	data       = ProtoField.bytes("pcietlp.data", "Data"),
}
tlp.fields = {
	f.version, f.dir, f.reserved, f.type, f.fmt, f.type_code, f.tc, f.header_len, f.length,
	f.requester, f.tag, f.addr, f.first_be, f.last_be, f.completer, f.status, f.byte_count,
	f.lower_addr, f.data_len, f.data,
}

local e_malformed = ProtoExpert.new("pcietlp.malformed", "Malformed TLP record",
	expert.group.MALFORMED, expert.severity.ERROR)
local e_unsupported = ProtoExpert.new("pcietlp.unsupported", "TLP type not modelled by mkeysim",
	expert.group.UNDECODED, expert.severity.WARN)
tlp.experts = { e_malformed, e_unsupported }

local PSEUDO = 4 -- pseudo-header bytes

-- bdf formats a requester or completer ID as bus:device.function.
local function bdf(id)
	return string.format("%02x:%02x.%d", math.floor(id / 256), math.floor(id / 8) % 32, id % 8)
end

-- kind is the TLP type mkeysim's rtl/pcie gives to a Fmt and Type code,
-- or nil for the others.
local function kind(fmt, code)
	if code == 0 and (fmt == 0 or fmt == 1) then return "MRd" end
	if code == 0 and (fmt == 2 or fmt == 3) then return "MWr" end
	if code == 10 and fmt == 2 then return "CplD" end
	if code == 10 and fmt == 0 then return "Cpl" end
	return nil
end

function tlp.dissector(tvb, pinfo, tree)
	pinfo.cols.protocol = "PCIe TLP"
	local n = tvb:len()
	local t = tree:add(tlp, tvb(), "PCIe TLP")
	if n < PSEUDO then
		t:add_proto_expert_info(e_malformed, string.format("%d bytes: shorter than the 4-byte pseudo-header", n))
		return
	end
	t:add(f.version, tvb(0, 1))
	local version = tvb(0, 1):uint()
	if version ~= 1 then
		t:add_proto_expert_info(e_malformed, string.format("pseudo-header version %d: this dissector reads version 1", version))
		return
	end
	local dir = tvb(1, 1):uint()
	t:add(f.dir, tvb(1, 1))
	if dir == 0 then
		pinfo.cols.src, pinfo.cols.dst = "device", "root complex"
	elseif dir == 1 then
		pinfo.cols.src, pinfo.cols.dst = "root complex", "device"
	else
		t:add_proto_expert_info(e_malformed, string.format("direction %d: neither upstream (0) nor downstream (1)", dir))
	end
	local rsv = t:add(f.reserved, tvb(2, 2))
	if tvb(2, 2):uint() ~= 0 then
		rsv:add_proto_expert_info(e_malformed, "reserved bytes are not zero")
	end

	local o = PSEUDO -- the TLP's first byte
	if n < o + 12 then
		t:add_proto_expert_info(e_malformed, string.format("%d TLP bytes: shorter than a 3DW header", n - o))
		return
	end
	local fmt = tvb(o, 1):bitfield(0, 3)
	local code = tvb(o, 1):bitfield(3, 5)
	local name = kind(fmt, code)
	local ti = t:add(f.type, tvb(o, 1), name or "unknown")
	t:add(f.fmt, tvb(o, 1))
	t:add(f.type_code, tvb(o, 1))
	t:add(f.tc, tvb(o + 1, 1))
	if name == nil then
		ti:add_proto_expert_info(e_unsupported, string.format("Fmt %d, Type %d", fmt, code))
		pinfo.cols.info = string.format("Fmt %d Type %d (not modelled)", fmt, code)
		return
	end
	local hdr = 12
	if fmt == 1 or fmt == 3 then hdr = 16 end
	t:add(f.header_len, tvb(o, 1), hdr)
	if n < o + hdr then
		t:add_proto_expert_info(e_malformed, string.format("%d TLP bytes: shorter than its %d-byte header", n - o, hdr))
		return
	end

	local wire_len = tvb(o + 2, 2):bitfield(6, 10)
	local len = wire_len
	local has_data = name == "MWr" or name == "CplD"
	if name == "Cpl" then
		t:add(f.length, tvb(o + 2, 2), wire_len):append_text(" (reserved in a completion without data)")
		len = 0
	else
		if len == 0 then len = 1024 end
		t:add(f.length, tvb(o + 2, 2), len)
	end
	local tag_hi = tvb(o + 1, 1):bitfield(0, 1) * 512 + tvb(o + 1, 1):bitfield(4, 1) * 256

	local info
	if name == "MRd" or name == "MWr" then
		local rid = tvb(o + 4, 2):uint()
		t:add(f.requester, tvb(o + 4, 2)):append_text(" (" .. bdf(rid) .. ")")
		local tag = tag_hi + tvb(o + 6, 1):uint()
		t:add(f.tag, tvb(o + 6, 1), tag)
		local addr, arange
		if hdr == 16 then
			arange = tvb(o + 8, 8)
			addr = UInt64.new(tvb(o + 12, 4):bitfield(0, 30) * 4, tvb(o + 8, 4):uint())
		else
			arange = tvb(o + 8, 4)
			addr = UInt64.new(tvb(o + 8, 4):bitfield(0, 30) * 4, 0)
		end
		t:add(f.addr, arange, addr)
		t:add(f.first_be, tvb(o + 7, 1))
		t:add(f.last_be, tvb(o + 7, 1))
		local a = addr:tohex()
		if hdr == 12 then a = string.sub(a, 9) end
		info = string.format("%s 0x%s %d DW tag %d req %s", name, a, len, tag, bdf(rid))
	else
		local cid = tvb(o + 4, 2):uint()
		t:add(f.completer, tvb(o + 4, 2)):append_text(" (" .. bdf(cid) .. ")")
		t:add(f.status, tvb(o + 6, 1))
		local bc = tvb(o + 6, 2):bitfield(4, 12)
		if bc == 0 then bc = 4096 end
		t:add(f.byte_count, tvb(o + 6, 2), bc)
		local rid = tvb(o + 8, 2):uint()
		t:add(f.requester, tvb(o + 8, 2)):append_text(" (" .. bdf(rid) .. ")")
		local tag = tag_hi + tvb(o + 10, 1):uint()
		t:add(f.tag, tvb(o + 10, 1), tag)
		t:add(f.lower_addr, tvb(o + 11, 1))
		local st = status_names[tvb(o + 6, 1):bitfield(0, 3)] or "reserved status"
		info = string.format("%s %s %d DW tag %d req %s bc %d la 0x%02x", name, st, len, tag, bdf(rid), bc,
			tvb(o + 11, 1):bitfield(1, 7))
	end

	local want = 0
	if has_data then want = len * 4 end
	local got = n - o - hdr
	local dl = t:add(f.data_len, tvb(o, n - o), got)
	if got ~= want then
		dl:add_proto_expert_info(e_malformed, string.format("%d payload bytes, Length says %d", got, want))
	end
	if got > 0 then
		t:add(f.data, tvb(o + hdr, got))
	end
	pinfo.cols.info = info
	t:append_text(", " .. info)
end

DissectorTable.get("wtap_encap"):add(wtap_encaps.USER0, tlp)

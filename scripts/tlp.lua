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
--   PASID prefix (End-End TLP Prefix, Fmt 100b Type 1_0001b, before the
--   header): pcietlp.prefix (the prefix DW), pcietlp.pasid (20 bits),
--   pcietlp.pmr (Privileged Mode Requested), pcietlp.er (Execute Requested);
--   pcietlp.type (MRd, MWr, CplD, Cpl, Msg, MsgD, as mkeysim's rtl/pcie
--   names them),
--   pcietlp.fmt, pcietlp.type_code, pcietlp.tc,
--   pcietlp.ro (Attr[1], Relaxed Ordering: requests and completions),
--   pcietlp.header_len (the header without the prefix),
--   pcietlp.length (Length in DW, 0 on the wire read as 1024),
--   pcietlp.requester, pcietlp.tag (10 bits: T9, T8 and Tag[7:0]),
--   requests: pcietlp.at (Address Type: 0 untranslated, 1 Translation
--   Request, 2 translated), pcietlp.addr (32- or 64-bit; a Translation
--   Request's Untranslated Address, bits 11:0 zero), pcietlp.nw (a
--   Translation Request's No Write), pcietlp.first_be, pcietlp.last_be;
--   completions: pcietlp.completer, pcietlp.status, pcietlp.byte_count
--   (0 on the wire read as 4096), pcietlp.lower_addr;
--   a CplD answering an earlier Translation Request of the same requester
--   and tag in the capture is a Translation Completion: per 8-byte data
--   entry pcietlp.translated_addr, pcietlp.s (Size), pcietlp.n
--   (Non-snooped), pcietlp.u (Untranslated access only), pcietlp.w,
--   pcietlp.r;
--   messages routed by ID: pcietlp.msg_code (1 Invalidate Request,
--   2 Invalidate Completion), pcietlp.device_id (header bytes 8-9, the
--   destination); Invalidate Request: pcietlp.itag (Tag bits 4:0) and its
--   payload's pcietlp.untranslated_addr, pcietlp.s, pcietlp.global_inv;
--   Invalidate Completion: pcietlp.cc (Completion Count, 0 means 8),
--   pcietlp.itag_vector;
--   pcietlp.data_len (payload bytes), pcietlp.data.

local tlp = Proto("pcietlp", "PCIe TLP (mkeysim capture)")

local dir_names = { [0] = "Upstream (device to root complex)", [1] = "Downstream (root complex to device)" }
local fmt_names = {
	[0] = "3DW header, no data", [1] = "4DW header, no data",
	[2] = "3DW header, with data", [3] = "4DW header, with data", [4] = "TLP prefix",
}
local status_names = { [0] = "SC", [1] = "UR", [2] = "CRS", [4] = "CA" }
local at_names = { [0] = "Untranslated", [1] = "Translation Request", [2] = "Translated", [3] = "Reserved" }
local msg_names = { [1] = "ATS Invalidate Request", [2] = "ATS Invalidate Completion" }

local f = {
	version    = ProtoField.uint8("pcietlp.version", "Version", base.DEC),
	dir        = ProtoField.uint8("pcietlp.dir", "Direction", base.DEC, dir_names),
	reserved   = ProtoField.uint16("pcietlp.reserved", "Reserved", base.HEX),
	type       = ProtoField.string("pcietlp.type", "Type"),
	fmt        = ProtoField.uint8("pcietlp.fmt", "Fmt", base.DEC, fmt_names, 0xe0),
	type_code  = ProtoField.uint8("pcietlp.type_code", "Type code", base.HEX, nil, 0x1f),
	tc         = ProtoField.uint8("pcietlp.tc", "Traffic class", base.DEC, nil, 0x70),
	-- Attr[1] (DW0 bit 13, byte 2 bit 5): Relaxed Ordering, which mkeysim
	-- sets on the data TLPs of a key with relaxed_ordering_write (MWr) or
	-- relaxed_ordering_read (MRd, copied to its completions)
	ro         = ProtoField.uint8("pcietlp.ro", "Relaxed Ordering (Attr[1])", base.DEC, nil, 0x20),
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
	-- PASID prefix
	prefix     = ProtoField.uint32("pcietlp.prefix", "PASID TLP prefix", base.HEX),
	er         = ProtoField.uint32("pcietlp.er", "Execute Requested", base.DEC, nil, 0x00800000),
	pmr        = ProtoField.uint32("pcietlp.pmr", "Privileged Mode Requested", base.DEC, nil, 0x00400000),
	pasid      = ProtoField.uint32("pcietlp.pasid", "PASID", base.HEX, nil, 0x000fffff),
	-- ATS on memory requests
	at         = ProtoField.uint8("pcietlp.at", "Address type", base.DEC, at_names, 0x0c),
	nw         = ProtoField.uint8("pcietlp.nw", "No Write", base.DEC, nil, 0x01),
	-- Translation Completion data entries
	entry      = ProtoField.bytes("pcietlp.tc_entry", "Translation completion entry"),
	translated = ProtoField.uint64("pcietlp.translated_addr", "Translated address", base.HEX),
	s          = ProtoField.uint32("pcietlp.s", "Size (S)", base.DEC, nil, 0x00000800),
	n          = ProtoField.uint32("pcietlp.n", "Non-snooped (N)", base.DEC, nil, 0x00000400),
	u          = ProtoField.uint32("pcietlp.u", "Untranslated access only (U)", base.DEC, nil, 0x00000004),
	w          = ProtoField.uint32("pcietlp.w", "Write (W)", base.DEC, nil, 0x00000002),
	r          = ProtoField.uint32("pcietlp.r", "Read (R)", base.DEC, nil, 0x00000001),
	-- messages routed by ID: ATS Invalidate Request and Completion
	msg_code   = ProtoField.uint8("pcietlp.msg_code", "Message code", base.HEX, msg_names),
	device_id  = ProtoField.uint16("pcietlp.device_id", "Device ID", base.HEX),
	itag       = ProtoField.uint8("pcietlp.itag", "ITag", base.DEC, nil, 0x1f),
	cc         = ProtoField.uint16("pcietlp.cc", "Completion count (CC)", base.DEC, nil, 0x0007),
	itag_vec   = ProtoField.uint32("pcietlp.itag_vector", "ITag vector", base.HEX),
	untrans    = ProtoField.uint64("pcietlp.untranslated_addr", "Untranslated address", base.HEX),
	global_inv = ProtoField.uint32("pcietlp.global_inv", "Global invalidate", base.DEC, nil, 0x00000001),
}
tlp.fields = {
	f.version, f.dir, f.reserved, f.type, f.fmt, f.type_code, f.tc, f.ro, f.header_len, f.length,
	f.requester, f.tag, f.addr, f.first_be, f.last_be, f.completer, f.status, f.byte_count,
	f.lower_addr, f.data_len, f.data,
	f.prefix, f.er, f.pmr, f.pasid, f.at, f.nw, f.entry, f.translated, f.s, f.n, f.u, f.w, f.r,
	f.msg_code, f.device_id, f.itag, f.cc, f.itag_vec, f.untrans, f.global_inv,
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
	if code == 18 and fmt == 1 then return "Msg" end -- 1_0010b: a message routed by ID
	if code == 18 and fmt == 3 then return "MsgD" end
	return nil
end

-- addr64 is the 64-bit address of the 8 bytes at r, bits 11:0 cleared
-- (the ATS formats' addresses: bits 63:12).
local function addr64(r)
	return UInt64.new(r:range(4, 4):bitfield(0, 20) * 4096, r:range(0, 4):uint())
end

-- Translation Requests seen so far, by requester ID and tag, and the
-- frames found to be Translation Completions (the first pass decides;
-- later passes, as Wireshark's, look it up).
local pending_tr = {}
local tc_frames = {}

function tlp.init()
	pending_tr = {}
	tc_frames = {}
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
	local pasid_info = ""
	if n >= o + 4 and tvb(o, 1):bitfield(0, 3) == 4 then -- a TLP prefix
		if tvb(o, 1):uint() ~= 0x91 then
			local ti = t:add(f.type, tvb(o, 1), "unknown")
			ti:add_proto_expert_info(e_unsupported, string.format("TLP prefix Fmt 4, Type %d: only the PASID prefix is decoded",
				tvb(o, 1):bitfield(3, 5)))
			pinfo.cols.info = "TLP prefix (not modelled)"
			return
		end
		local pt = t:add(f.prefix, tvb(o, 4))
		pt:add(f.er, tvb(o, 4))
		pt:add(f.pmr, tvb(o, 4))
		pt:add(f.pasid, tvb(o, 4))
		pasid_info = string.format(" pasid 0x%05x", tvb(o, 4):bitfield(12, 20))
		if tvb(o + 1, 1):bitfield(1, 1) == 1 then pasid_info = pasid_info .. " pmr" end
		if tvb(o + 1, 1):bitfield(0, 1) == 1 then pasid_info = pasid_info .. " er" end
		o = o + 4
		if n >= o + 1 and tvb(o, 1):bitfield(0, 3) == 4 then
			local ti = t:add(f.type, tvb(o, 1), "unknown")
			ti:add_proto_expert_info(e_unsupported, "a second TLP prefix")
			pinfo.cols.info = "TLP prefixes (not modelled)"
			return
		end
	end
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
	local msg = name == "Msg" or name == "MsgD"
	local ro_set = false
	if not msg then -- Attr[1]: memory requests and completions
		t:add(f.ro, tvb(o + 2, 1))
		ro_set = tvb(o + 2, 1):bitfield(2, 1) == 1
	end
	local mcode = nil
	if msg then
		mcode = tvb(o + 7, 1):uint()
		if msg_names[mcode] == nil then
			ti:add_proto_expert_info(e_unsupported, string.format("Message code 0x%02x", mcode))
		end
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
	local has_data = name == "MWr" or name == "CplD" or name == "MsgD"
	if name == "Cpl" or name == "Msg" then
		local what = "a completion"
		if name == "Msg" then what = "a message" end
		t:add(f.length, tvb(o + 2, 2), wire_len):append_text(" (reserved in " .. what .. " without data)")
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
		local at = tvb(o + 2, 1):bitfield(4, 2)
		t:add(f.at, tvb(o + 2, 1))
		local what = name
		if at == 1 then -- Translation Request: Untranslated Address[63:12], NW in bit 0
			addr = UInt64.new(tvb(o + hdr - 4, 4):bitfield(0, 20) * 4096, addr:higher())
			what = "Translation Request"
			if name == "MRd" and not pinfo.visited then
				pending_tr[rid * 1024 + tag] = true
			end
		elseif at == 2 then
			what = name .. " translated"
		end
		t:add(f.addr, arange, addr)
		if at == 1 then
			t:add(f.nw, tvb(o + hdr - 1, 1))
			if tvb(o + hdr - 1, 1):bitfield(7, 1) == 1 then what = what .. " NW" end
		end
		t:add(f.first_be, tvb(o + 7, 1))
		t:add(f.last_be, tvb(o + 7, 1))
		local a = addr:tohex()
		if hdr == 12 then a = string.sub(a, 9) end
		info = string.format("%s 0x%s %d DW tag %d req %s", what, a, len, tag, bdf(rid))
	elseif msg then
		local rid = tvb(o + 4, 2):uint()
		t:add(f.requester, tvb(o + 4, 2)):append_text(" (" .. bdf(rid) .. ")")
		local tag = tag_hi + tvb(o + 6, 1):uint()
		t:add(f.tag, tvb(o + 6, 1), tag)
		t:add(f.msg_code, tvb(o + 7, 1))
		local dev = tvb(o + 8, 2):uint()
		t:add(f.device_id, tvb(o + 8, 2)):append_text(" (" .. bdf(dev) .. ")")
		if mcode == 1 then
			t:add(f.itag, tvb(o + 6, 1))
			info = string.format("Invalidate Request itag %d req %s dev %s", tvb(o + 6, 1):bitfield(3, 5), bdf(rid), bdf(dev))
			if name == "MsgD" and len == 2 and n >= o + hdr + 8 then
				local body = tvb(o + hdr, 8)
				t:add(f.untrans, body, addr64(body))
				t:add(f.s, body:range(4, 4))
				t:add(f.global_inv, body:range(4, 4))
				info = info .. string.format(" addr 0x%s s %d", addr64(body):tohex(), body:range(4, 4):bitfield(20, 1))
			end
		elseif mcode == 2 then
			t:add(f.cc, tvb(o + 10, 2))
			t:add(f.itag_vec, tvb(o + 12, 4))
			info = string.format("Invalidate Completion req %s dev %s cc %d itags 0x%08x", bdf(rid), bdf(dev),
				tvb(o + 10, 2):bitfield(13, 3), tvb(o + 12, 4):uint())
		else
			info = string.format("%s code 0x%02x req %s dev %s", name, mcode, bdf(rid), bdf(dev))
		end
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
		local what = name
		local key = rid * 1024 + tag
		if not pinfo.visited and pending_tr[key] then
			pending_tr[key] = nil
			tc_frames[pinfo.number] = true
		end
		if tc_frames[pinfo.number] then
			what = "Translation Completion " .. name
			if name == "CplD" and len % 2 == 0 and n >= o + hdr + len * 4 then
				for i = 0, len / 2 - 1 do
					local er = tvb(o + hdr + i * 8, 8)
					local et = t:add(f.entry, er)
					et:add(f.translated, er, addr64(er))
					et:add(f.s, er:range(4, 4))
					et:add(f.n, er:range(4, 4))
					et:add(f.u, er:range(4, 4))
					et:add(f.w, er:range(4, 4))
					et:add(f.r, er:range(4, 4))
				end
			end
		end
		info = string.format("%s %s %d DW tag %d req %s bc %d la 0x%02x", what, st, len, tag, bdf(rid), bc,
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
	if ro_set then info = info .. " RO" end
	info = info .. pasid_info
	pinfo.cols.info = info
	t:append_text(", " .. info)
end

DissectorTable.get("wtap_encap"):add(wtap_encaps.USER0, tlp)

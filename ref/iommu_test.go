package ref_test

import (
	"strings"
	"testing"

	"mkeysim/ref"
	"mkeysim/scenario"
)

// iommuRun runs a scenario document through the golden model (with
// hca_cap.ats) and returns its result lines.
func iommuRun(t *testing.T, doc string) []string {
	t.Helper()
	sc, err := scenario.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	cfg := ref.DefaultConfig()
	cfg.ATS = true
	res, err := ref.Run(sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res))
	for i := range res {
		out[i] = string(res[i].AppendJSON(nil))
	}
	return out
}

func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// The keys of the directed cases, all of PD 5 with every right: 1 a PA
// key (ma_translation_mode None), 2 an ATS MTT key of two 4 KiB pages,
// 3 and 4 CAPI PA keys of PASIDs 5 and 6, 5 a KLM key over 3 and 4, 6 a
// KLM key over 1 and 2, 7 a SW_ICM key, 8 a KLM key over 1 and a key 9
// with no remote write, 10 an ODP MTT key whose page is not present (a
// CAPI key whose pasid is wider than 20 bits is refused: see
// TestTranslationModeRefusals).
const iommuKeys = `"qps": [{"qpn": 1, "pd": 5}],
  "mkeys": [
    {"index": 1, "mkc": {"access_mode": "PA", "pd": 5, "start_addr": 0, "len": "0x100000000", "lr": 1, "lw": 1, "rr": 1, "rw": 1, "a": 1}},
    {"index": 2, "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": "0x7000", "len": 8192, "log_entity_size": 12, "ma_translation_mode": 1, "lr": 1, "lw": 1, "rr": 1, "rw": 1, "a": 1},
     "mtt": [{"ptag": "0x3000"}, {"ptag": "0x1000"}]},
    {"index": 3, "mkc": {"access_mode": "PA", "pd": 5, "start_addr": 0, "len": "0x100000000", "ma_translation_mode": 3, "pasid": 5, "lr": 1, "lw": 1, "rr": 1, "rw": 1, "a": 1}},
    {"index": 4, "mkc": {"access_mode": "PA", "pd": 5, "start_addr": 0, "len": "0x100000000", "ma_translation_mode": 3, "pasid": 6, "lr": 1, "lw": 1, "rr": 1, "rw": 1, "a": 1}},
    {"index": 5, "mkc": {"access_mode": "KLM", "pd": 5, "start_addr": 0, "len": 8192, "lr": 1, "lw": 1, "rr": 1, "rw": 1},
     "klm": [{"byte_count": 4096, "mkey": "0x300", "address": "0x1000"}, {"byte_count": 4096, "mkey": "0x400", "address": "0x1000"}]},
    {"index": 6, "mkc": {"access_mode": "KLM", "pd": 5, "start_addr": 0, "len": 8192, "lr": 1, "lw": 1, "rr": 1, "rw": 1},
     "klm": [{"byte_count": 4096, "mkey": "0x100", "address": "0x201000"}, {"byte_count": 4096, "mkey": "0x200", "address": "0x7800"}]},
    {"index": 7, "mkc": {"access_mode": "SW_ICM", "pd": 5, "start_addr": 0, "len": 4096, "lr": 1, "lw": 1}},
    {"index": 8, "mkc": {"access_mode": "KLM", "pd": 5, "start_addr": 0, "len": 8192, "lr": 1, "lw": 1, "rr": 1, "rw": 1},
     "klm": [{"byte_count": 4096, "mkey": "0x100", "address": "0x900000"}, {"byte_count": 4096, "mkey": "0x900", "address": 0}]},
    {"index": 9, "mkc": {"access_mode": "PA", "pd": 5, "start_addr": 0, "len": 4096, "lr": 1, "lw": 1, "rr": 1}},
    {"index": 10, "odp": true, "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": 0, "len": 4096, "log_entity_size": 12, "lr": 1, "lw": 1, "rr": 1, "rw": 1, "umr_en": 1},
     "mtt": [{"ptag": "0x0", "rd_en": 0, "wr_en": 0}]}
  ]`

// iommuMappings: the HCA's requester ID 0x100 maps a 1 GiB leaf at
// 0x40000000 (iova and pa alike modulo 1 GiB), a 2 MiB leaf at 0x200000,
// then the 4 KiB pages 0x1000..0x4000 (0x1000 and 0x2000 contiguous in
// PA, 0x3000 elsewhere and read-only, 0x4000 write-only); PASID 5 maps
// 0x1000 and PASID 6 maps 0x1000, each to its own page.
const iommuMappings = `"iommu": {"requester_id": "0x100", "mappings": [
    {"iova": "0x40000000", "pa": "0x1c0000000", "size": "0x40000000", "perm": "rw"},
    {"iova": "0x200000", "pa": "0x7600000", "size": "0x200000", "perm": "rw"},
    {"iova": "0x1000", "pa": "0x81000", "size": "0x2000", "perm": "rw"},
    {"iova": "0x3000", "pa": "0x93000", "size": "0x1000", "perm": "r"},
    {"iova": "0x4000", "pa": "0xa4000", "size": "0x1000", "perm": "w"},
    {"pasid": 5, "iova": "0x1000", "pa": "0x55000", "size": "0x1000", "perm": "rw"},
    {"pasid": 6, "iova": "0x1000", "pa": "0x66000", "size": "0x1000", "perm": "rw"}
  ]}`

// TestIOMMUTranslate: the directed cases of the IOVA -> PA path.
func TestIOMMUTranslate(t *testing.T) {
	acc := func(key, addr string, n int, typ string) string {
		return `{"op": "access", "qpn": 1, "key": "` + key + `", "addr": "` + addr + `", "len": ` + itoa(n) + `, "type": "` + typ + `"}`
	}
	ops := []string{
		// 0: None key, 4 KiB leaves: 0x1000 and 0x2000 are contiguous in
		// PA and make one segment; 0x3000 is elsewhere: cut there.
		acc("0x100", "0x1f00", 0x1200, "LOCAL_READ"),
		// 1: the same written: 0x3000 is read-only, the first byte there
		// faults (offset 0x1100), level 0, the key and the IOVA named.
		acc("0x100", "0x1f00", 0x1200, "LOCAL_WRITE"),
		// 2: read of the write-only page.
		acc("0x100", "0x4010", 16, "REMOTE_READ"),
		// 3, 4, 5: an atomic needs both: rw passes, r and w fault.
		acc("0x100", "0x1008", 8, "REMOTE_ATOMIC"),
		acc("0x100", "0x3008", 8, "REMOTE_ATOMIC"),
		acc("0x100", "0x4008", 8, "REMOTE_ATOMIC"),
		// 6: a 2 MiB leaf then the unmapped IOVA after it.
		acc("0x100", "0x3fff00", 0x100, "REMOTE_WRITE"),
		acc("0x100", "0x3fff00", 0x200, "REMOTE_WRITE"),
		// 8: a 1 GiB leaf, an access across the 2 MiB boundary inside it:
		// one leaf, one segment.
		acc("0x100", "0x401fff00", 0x200, "LOCAL_READ"),
		// 9: the ATS MTT key (requester ID's table): page 0 is IOVA
		// 0x3000 (read-only), page 1 IOVA 0x1000.
		acc("0x200", "0x7f00", 0x200, "LOCAL_READ"),
		acc("0x200", "0x7f00", 0x200, "LOCAL_WRITE"),
		// 11: KLM over two CAPI keys in PASIDs 5 and 6: each piece in its
		// key's table.
		acc("0x500", "0xf00", 0x200, "REMOTE_WRITE"),
		// 12: KLM over the None key (2 MiB leaf) and the ATS key: the
		// fault at level 1, on the MTT key's page 0 (read-only), offset
		// 0x1000 in the request.
		acc("0x600", "0xf00", 0x200, "LOCAL_READ"),
		acc("0x600", "0xf00", 0x200, "LOCAL_WRITE"),
		// 14: SW_ICM segments are not translated.
		acc("0x700", "0x10", 16, "LOCAL_WRITE"),
		// 15: the order: an unmapped first piece, then ACCESS_DENIED on
		// the second piece's key: the MKey check is reported.
		acc("0x800", "0xf00", 0x200, "REMOTE_WRITE"),
		// 16: the same read passes the MKey checks: IOMMU_FAULT.
		acc("0x800", "0xf00", 0x200, "REMOTE_READ"),
		// 17: a CAPI key, at an IOVA its PASID's table does not map.
		acc("0x300", "0x100", 16, "LOCAL_READ"),
		// 18: the ODP key faults (PAGE_FAULT): its IOVA 0 is unmapped,
		// but translation.md 4's checks come first.
		acc("0xa00", "0x0", 16, "LOCAL_READ"),
		// 19: unmap 0x1000..0x2000, then the access of 0 faults at 0x1000.
		`{"op": "iommu_unmap", "iova": "0x1000", "size": "0x1000"}`,
		acc("0x100", "0x1f00", 0x200, "LOCAL_READ"),
		// 21: unmap of nothing, of a range only partly mapped, of half a 2 MiB
		// page, of another table's page: BAD_PARAM, nothing changes.
		`{"op": "iommu_unmap", "iova": "0x1000", "size": "0x1000"}`,
		`{"op": "iommu_unmap", "iova": "0x4000", "size": "0x2000"}`,
		`{"op": "iommu_unmap", "iova": "0x200000", "size": "0x1000"}`,
		`{"op": "iommu_unmap", "pasid": 7, "iova": "0x1000", "size": "0x1000"}`,
		`{"op": "iommu_unmap", "iova": "0x2800", "size": "0x1000"}`,
		acc("0x100", "0x2f00", 0x200, "LOCAL_READ"),
		// 27: PASID 5's page unmapped: the KLM access faults at level 1.
		`{"op": "iommu_unmap", "pasid": 5, "iova": "0x1000", "size": "0x1000"}`,
		acc("0x500", "0xf00", 0x200, "REMOTE_WRITE"),
		// 29: the whole 2 MiB page unmapped.
		`{"op": "iommu_unmap", "rid": "0x100", "iova": "0x200000", "size": "0x200000"}`,
		acc("0x100", "0x3fff00", 0x100, "REMOTE_WRITE"),
	}
	doc := "{" + iommuKeys + ",\n" + iommuMappings + `, "ops": [` + strings.Join(ops, ",\n") + "]}"
	want := []string{
		`{"seq":0,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1f00","pa":"0x81f00","len":4352},{"space":"dma","addr":"0x3000","pa":"0x93000","len":256}]}`,
		`{"seq":1,"op":"access","status":"IOMMU_FAULT","level":0,"offset":4352,"fault_key":"0x100","fault_addr":"0x3000"}`,
		`{"seq":2,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x100","fault_addr":"0x4010"}`,
		`{"seq":3,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1008","pa":"0x81008","len":8}]}`,
		`{"seq":4,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x100","fault_addr":"0x3008"}`,
		`{"seq":5,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x100","fault_addr":"0x4008"}`,
		`{"seq":6,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x3fff00","pa":"0x77fff00","len":256}]}`,
		`{"seq":7,"op":"access","status":"IOMMU_FAULT","level":0,"offset":256,"fault_key":"0x100","fault_addr":"0x400000"}`,
		`{"seq":8,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x401fff00","pa":"0x1c01fff00","len":512}]}`,
		`{"seq":9,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x3f00","pa":"0x93f00","len":256},{"space":"dma","addr":"0x1000","pa":"0x81000","len":256}]}`,
		`{"seq":10,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x200","fault_addr":"0x3f00"}`,
		`{"seq":11,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1f00","pa":"0x55f00","len":256},{"space":"dma","addr":"0x1000","pa":"0x66000","len":256}]}`,
		`{"seq":12,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x201f00","pa":"0x7601f00","len":256},{"space":"dma","addr":"0x3800","pa":"0x93800","len":256}]}`,
		`{"seq":13,"op":"access","status":"IOMMU_FAULT","level":1,"offset":256,"fault_key":"0x200","fault_addr":"0x3800"}`,
		`{"seq":14,"op":"access","status":"OK","segments":[{"space":"sw_icm","addr":"0x10","len":16}]}`,
		`{"seq":15,"op":"access","status":"ACCESS_DENIED","level":1,"offset":256}`,
		`{"seq":16,"op":"access","status":"IOMMU_FAULT","level":1,"offset":0,"fault_key":"0x100","fault_addr":"0x900f00"}`,
		`{"seq":17,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x300","fault_addr":"0x100"}`,
		`{"seq":18,"op":"access","status":"PAGE_FAULT","level":0,"offset":0,"fault_key":"0xa00","fault_addr":"0x0"}`,
		`{"seq":19,"op":"iommu_unmap","status":"OK"}`,
		`{"seq":20,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x100","fault_addr":"0x1f00"}`,
		`{"seq":21,"op":"iommu_unmap","status":"BAD_PARAM","reason":"rid 0x0100: iova 0x1000 is not mapped"}`,
		`{"seq":22,"op":"iommu_unmap","status":"BAD_PARAM","reason":"rid 0x0100: iova 0x5000 is not mapped"}`,
		`{"seq":23,"op":"iommu_unmap","status":"BAD_PARAM","reason":"rid 0x0100: iova 0x200000: the range cuts the 2 MiB page at 0x200000"}`,
		`{"seq":24,"op":"iommu_unmap","status":"BAD_PARAM","reason":"pasid 0x7: iova 0x1000: nothing is mapped in pasid 0x7"}`,
		`{"seq":25,"op":"iommu_unmap","status":"BAD_PARAM","reason":"rid 0x0100: iova 0x2800 not 4 KiB-aligned"}`,
		`{"seq":26,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x2f00","pa":"0x82f00","len":256},{"space":"dma","addr":"0x3000","pa":"0x93000","len":256}]}`,
		`{"seq":27,"op":"iommu_unmap","status":"OK"}`,
		`{"seq":28,"op":"access","status":"IOMMU_FAULT","level":1,"offset":0,"fault_key":"0x300","fault_addr":"0x1f00"}`,
		`{"seq":29,"op":"iommu_unmap","status":"OK"}`,
		`{"seq":30,"op":"access","status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0x100","fault_addr":"0x3fff00"}`,
	}
	checkLines(t, iommuRun(t, doc), want)
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}

// TestIOMMUNone: the same keys and accesses without an iommu section
// translate as before issue 36: no segment has a pa.
func TestIOMMUNone(t *testing.T) {
	doc := "{" + iommuKeys + `, "ops": [
	  {"op": "access", "qpn": 1, "key": "0x100", "addr": "0x1f00", "len": 4608, "type": "LOCAL_WRITE"},
	  {"op": "access", "qpn": 1, "key": "0x500", "addr": "0xf00", "len": 512, "type": "REMOTE_WRITE"}]}`
	checkLines(t, iommuRun(t, doc), []string{
		`{"seq":0,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1f00","len":4608}]}`,
		`{"seq":1,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1f00","len":256},{"space":"dma","addr":"0x1000","len":256}]}`,
	})
}

// TestIOMMUResume: an ODP fault resumed after the IOMMU lost the page
// ends with IOMMU_FAULT, inside page_fault_resume's line.
func TestIOMMUResume(t *testing.T) {
	doc := "{" + iommuKeys + ",\n" + iommuMappings + `, "ops": [
	  {"op": "access", "qpn": 1, "key": "0xa00", "addr": "0x10", "len": 16, "type": "LOCAL_READ"},
	  {"op": "umr", "qpn": 1, "key": "0xa00", "mtt": [{"ptag": "0x1000"}]},
	  {"op": "iommu_unmap", "iova": "0x1000", "size": "0x2000"},
	  {"op": "page_fault_resume", "key": "0xa00"}]}`
	checkLines(t, iommuRun(t, doc), []string{
		`{"seq":0,"op":"access","status":"PAGE_FAULT","level":0,"offset":0,"fault_key":"0xa00","fault_addr":"0x10"}`,
		`{"seq":1,"op":"umr","status":"OK"}`,
		`{"seq":2,"op":"iommu_unmap","status":"OK"}`,
		`{"seq":3,"op":"page_fault_resume","status":"OK","resumed":[{"seq":0,"status":"IOMMU_FAULT","level":0,"offset":0,"fault_key":"0xa00","fault_addr":"0x1010"}]}`,
	})
}

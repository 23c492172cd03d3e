package rtl

import (
	"runtime"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
)

// TestPageTableScattered: in the scattered order two MKCs of one ICM page
// share a host page, MKCs 64 apart (neighbouring ICM pages) sit in host
// pages that are not neighbours, a list's neighbouring pages likewise;
// and a query reads the same list as in the contiguous order, through a
// sparse memory and through one scanned a page at a time.
func TestPageTableScattered(t *testing.T) {
	host := DefaultHostConfig()
	host.ICMPageOrder = OrderScattered
	mem := pcie.NewMemory()
	f := newFirmware(mem, 0, host)
	key := func(i uint32) *scenario.MKey {
		return &scenario.MKey{Index: i, HasIndex: true, PgAccess: true,
			MKC: prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12, PD: 5, LR: true, TranslationsOctwordSize: 1024},
			MTT: []prm.MTTEntry{{PTag: 0x5000, RdEn: true}, {PTag: 0x6000, WrEn: true}}}
	}
	for _, i := range []uint32{0, 1, 64} {
		if _, _, r := f.create(key(i)); r != nil {
			t.Fatal(r.reason)
		}
	}
	h0, h1, h64 := f.pg.icmHost(0), f.pg.icmHost(prm.MKCSize), f.pg.icmHost(64*prm.MKCSize)
	if h1 != h0+prm.MKCSize {
		t.Errorf("MKC 1 at %#x, MKC 0 at %#x: one page apart", h1, h0)
	}
	if d := int64(h64) - int64(h0); d == prm.PageBytes || d == -prm.PageBytes {
		t.Errorf("MKC 64 at %#x next to MKC 0's page %#x", h64, h0)
	}
	l0, l1 := f.pg.icmHost(handleBase), f.pg.icmHost(handleBase+prm.PageBytes)
	if l0 < handleBase || l1 < handleBase || l1-l0 == prm.PageBytes {
		t.Errorf("list pages 0 and 1 at %#x and %#x", l0, l1)
	}
	// The same keys in the contiguous order, then the list entries
	// written through each firmware's ICM view.
	cmem := pcie.NewMemory()
	c := newFirmware(cmem, 0, DefaultHostConfig())
	for _, i := range []uint32{0, 1, 64} {
		if _, _, r := c.create(key(i)); r != nil {
			t.Fatal(r.reason)
		}
	}
	e := prm.MTTEntry{PTag: 0x7000, RdEn: true, WrEn: true}.Append(nil)
	f.icm.Write(handleBase+16*1024+8, e) // index 2 of the second key's list
	c.icm.Write(handleBase+16*1024+8, e)
	if got := cmem.PresentPages(0, 1<<40); len(got) == 0 {
		t.Fatal("nothing written")
	}
	var a, b, s scenario.Result
	if r := c.query(1, nil, &a); r != nil {
		t.Fatal(r.reason)
	}
	if r := f.query(1, nil, &b); r != nil {
		t.Fatal(r.reason)
	}
	scan := newFirmware(plainICM{mem}, 0, host)
	scan.pg, scan.icm, scan.created = f.pg, icmView{plainICM{mem}, f.pg}, f.created
	if r := scan.query(1, nil, &s); r != nil {
		t.Fatal(r.reason)
	}
	if d := scenario.DiffList(a.List, b.List); d != "" {
		t.Errorf("scattered (sparse) vs contiguous: %s", d)
	}
	if d := scenario.DiffList(a.List, s.List); d != "" {
		t.Errorf("scattered (scanned) vs contiguous: %s", d)
	}
}

// TestPagesHugeCapacity: a list of 2^32-4 octwords (2^24 pages) is backed
// in one step: the firmware asks for every page (eager) and keeps a few
// ranges, not a map of pages; its memory stays small.
func TestPagesHugeCapacity(t *testing.T) {
	for _, order := range []string{OrderContiguous, OrderScattered} {
		host := DefaultHostConfig()
		host.ICMPageOrder = order
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f := newFirmware(pcie.NewMemory(), 0, host)
		k := &scenario.MKey{Index: 3, HasIndex: true, PgAccess: true,
			MKC: prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12, PD: 5, LR: true, TranslationsOctwordSize: 1<<32 - 4}}
		if _, _, r := f.create(k); r != nil {
			t.Fatal(r.reason)
		}
		var res scenario.Result
		if r := f.query(3, nil, &res); r != nil {
			t.Fatal(r.reason)
		}
		runtime.ReadMemStats(&after)
		// 1 MKC page + the list's pages ((2^36 - 64) bytes from 4 GiB:
		// 2^24 pages); 2 boot and init pages.
		if got, want := f.pg.stats.Asked, uint64(1+1<<24); got != want {
			t.Errorf("%s: asked %d pages, want %d", order, got, want)
		}
		if got, want := f.pg.stats.Given, uint64(2+1+1<<24); got != want {
			t.Errorf("%s: given %d pages, want %d", order, got, want)
		}
		if n := len(f.pg.backed.Backed()); n != 2 {
			t.Errorf("%s: %d ranges, want 2", order, n)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
			t.Errorf("%s: %d bytes allocated, want a few MB", order, d)
		}
	}
}

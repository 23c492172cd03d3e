package live

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// ListKind says which entries a translation list argument holds.
type ListKind int32

// The list kinds (cosim/mkeysim.h's enum mkeysim_list_kind).
const (
	ListNone ListKind = iota // no list
	ListMTT                  // 8-byte MTT entries
	ListKLM                  // 16-byte KLM entries
)

// Model is one golden-model instance: QPs, MKey table, ICM.
type Model struct {
	ref  *ref.Model
	segs []prm.Segment // Access's reused buffer
}

// NewModel returns an empty model whose KLM walks may look keys up at
// levels 0..maxIndirection (negative: the default, 4).
func NewModel(maxIndirection int) (*Model, error) {
	cfg := ref.DefaultConfig()
	switch {
	case maxIndirection > 7:
		return nil, fmt.Errorf("max_indirection %d above 7", maxIndirection)
	case maxIndirection >= 0:
		cfg.MaxIndirection = maxIndirection
	}
	return &Model{ref: ref.New(cfg)}, nil
}

// AddQP declares a QP; a later one with the same QPN replaces it.
func (m *Model) AddQP(qpn, pd uint32, regUMR bool) error {
	if qpn > prm.MaxIndex || pd > prm.MaxIndex {
		return fmt.Errorf("qpn %#x or pd %#x wider than 24 bits", qpn, pd)
	}
	m.ref.AddQP(scenario.QP{QPN: qpn, PD: pd, RegUMR: regUMR})
	return nil
}

// Create runs CREATE_MKEY: the 64-byte context mkc at index (negative:
// the lowest free one) with the first entries of its list. It returns the
// index used.
func (m *Model) Create(mkc []byte, index int64, odp, pgAccess bool, kind ListKind, list []byte) (uint32, *ref.Refusal, error) {
	k := scenario.MKey{ODP: odp, PgAccess: pgAccess}
	var err error
	if k.MKC, err = parseMKC("mkc", mkc); err != nil {
		return 0, nil, err
	}
	switch {
	case index > prm.MaxIndex:
		return 0, nil, fmt.Errorf("index %#x wider than 24 bits", index)
	case index >= 0:
		k.Index, k.HasIndex = uint32(index), true
	}
	if k.MTT, k.KLM, err = parseList(kind, list); err != nil {
		return 0, nil, err
	}
	i, r := m.ref.Create(k)
	return i, r, nil
}

// Load stores the 64-byte context mkc at index as it is, without
// CREATE_MKEY's checks, replacing what is there: a state that UMRs may
// reach and CREATE_MKEY refuses (the top vectors' MKC table holds such).
func (m *Model) Load(index uint32, mkc []byte, odp bool) error {
	img, err := parseMKC("mkc", mkc)
	if err != nil {
		return err
	}
	if index > prm.MaxIndex {
		return fmt.Errorf("index %#x wider than 24 bits", index)
	}
	if m.ref.Object(index) == nil {
		if _, r := m.ref.Create(scenario.MKey{Index: index, HasIndex: true, MKC: prm.MKC{LR: true}}); r != nil {
			return fmt.Errorf("index %#x: %v %s", index, r.Status, r.Reason)
		}
	}
	*m.ref.Object(index) = ref.Object{MKC: img, ODP: odp}
	return nil
}

// Destroy runs DESTROY_MKEY.
func (m *Model) Destroy(index uint32) *ref.Refusal { return m.ref.Destroy(index) }

// Query runs QUERY_MKEY: the 64-byte context and the ODP flag.
func (m *Model) Query(index uint32) ([prm.MKCSize]byte, bool, *ref.Refusal) {
	q, r := m.ref.Query(index)
	if r != nil {
		return [prm.MKCSize]byte{}, false, r
	}
	return q.MKC.Bytes(), m.ref.Object(index).ODP, nil
}

// UMR runs a UMR WQE posted on QP qpn for key: check_free, the mask, the
// image (nil: all zero; only masked fields count) and a list written at
// offset (16-byte units).
func (m *Model) UMR(qpn uint32, key prm.Key, checkFree uint8, mask uint64, mkc []byte, offset uint64, kind ListKind, list []byte) (*ref.Refusal, error) {
	u := scenario.UMR{QPN: qpn, Key: key, CheckFree: prm.CheckFree(checkFree), Mask: prm.MKeyMask(mask), Offset: offset}
	if checkFree > uint8(prm.CheckFreeIfInUse) {
		return nil, fmt.Errorf("check_free %d outside 0..2", checkFree)
	}
	if mkc != nil {
		var err error
		if u.Image, err = parseMKC("mkc", mkc); err != nil {
			return nil, err
		}
	}
	var err error
	if u.MTT, u.KLM, err = parseList(kind, list); err != nil {
		return nil, err
	}
	return m.ref.UMR(u), nil
}

// LocalInvalidate runs LOCAL_INVALIDATE of key from QP qpn.
func (m *Model) LocalInvalidate(qpn uint32, key prm.Key) *ref.Refusal {
	return m.ref.LocalInvalidate(qpn, key)
}

// SendWithInvalidate runs SEND_WITH_INVALIDATE of key from QP qpn.
func (m *Model) SendWithInvalidate(qpn uint32, key prm.Key) *ref.Refusal {
	return m.ref.SendWithInvalidate(qpn, key)
}

// Access translates a request against the current state without changing
// it. The outcome's segments are valid until the next Access.
func (m *Model) Access(qpn uint32, key prm.Key, va uint64, n uint32, typ prm.AccessType) (ref.Outcome, error) {
	if typ > prm.RemoteAtomic {
		return ref.Outcome{}, fmt.Errorf("access_type %d outside 0..%d", typ, prm.RemoteAtomic)
	}
	out := m.ref.Translate(ref.Request{QPN: qpn, Key: key, Addr: va, Len: n, Type: typ}, m.segs)
	m.segs = out.Segments[:0]
	return out, nil
}

// Check runs checks 2-10 of the piece [va, va+n) reaching key at level
// against the current context of key's index: the protcheck unit.
func (m *Model) Check(key prm.Key, level int, va uint64, n uint32, qpn, pd uint32, typ prm.AccessType) (prm.Status, error) {
	var mkc *prm.MKC
	if o := m.ref.Object(key.Index()); o != nil {
		mkc = &o.MKC
	}
	return protcheck(mkc, key, level, va, n, qpn, pd, typ)
}

// WriteICM writes b at ICM address a, as a host would write a
// translation list (or a testbench loads the top vectors' ICM image).
func (m *Model) WriteICM(a uint64, b []byte) error {
	if err := icmRange(a, len(b)); err != nil {
		return err
	}
	m.ref.ICM().Write(a, b)
	return nil
}

// ReadICM reads len(b) bytes at ICM address a (unwritten bytes are 0):
// what a DUT's ICM read port returns.
func (m *Model) ReadICM(a uint64, b []byte) error {
	if err := icmRange(a, len(b)); err != nil {
		return err
	}
	m.ref.ICM().Read(a, b)
	return nil
}

// parseMKC parses a 64-byte context image.
func parseMKC(name string, b []byte) (prm.MKC, error) {
	m, err := prm.ParseMKC(b)
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// parseList parses a list argument of kind.
func parseList(kind ListKind, b []byte) ([]prm.MTTEntry, []prm.KLMEntry, error) {
	switch kind {
	case ListNone:
		if len(b) != 0 {
			return nil, nil, fmt.Errorf("list_kind NONE with a list of %d bytes", len(b))
		}
		return nil, nil, nil
	case ListMTT:
		if len(b)%prm.MTTEntrySize != 0 {
			return nil, nil, fmt.Errorf("list_bytes %d is not a multiple of the %d-byte MTT entry", len(b), prm.MTTEntrySize)
		}
		out := make([]prm.MTTEntry, len(b)/prm.MTTEntrySize)
		for i := range out {
			e, err := prm.ParseMTTEntry(b[i*prm.MTTEntrySize : (i+1)*prm.MTTEntrySize])
			if err != nil {
				return nil, nil, fmt.Errorf("list entry %d: %w", i, err)
			}
			out[i] = e
		}
		return out, nil, nil
	case ListKLM:
		if len(b)%prm.KLMEntrySize != 0 {
			return nil, nil, fmt.Errorf("list_bytes %d is not a multiple of the %d-byte KLM entry", len(b), prm.KLMEntrySize)
		}
		out := make([]prm.KLMEntry, len(b)/prm.KLMEntrySize)
		for i := range out {
			out[i] = prm.DecodeKLMEntry(b[i*prm.KLMEntrySize:])
		}
		return nil, out, nil
	}
	return nil, nil, fmt.Errorf("list_kind %d outside 0..2", kind)
}

// icmRange checks that n bytes at a stay below 2^64.
func icmRange(a uint64, n int) error {
	if end := a + uint64(n); end < a && end != 0 {
		return fmt.Errorf("addr %#x + %d bytes passes 2^64", a, n)
	}
	return nil
}

package prm

import "errors"

// The send-queue work requests (WQEs) and their segments, laid out as the
// Linux kernel's include/linux/mlx5/qp.h and device.h lay them out and as
// drivers/infiniband/hw/mlx5/wr.c builds them. A WQE is a run of 16-byte
// octowords: a control segment first, then the segments its opcode needs.
// Each has a file (ctrlseg.go, segments.go, umrwqe.go, localinv.go,
// sendwqe.go); this one holds their units and how a parse gathers its
// errors.

// OctowordSize is the unit of a WQE's ds: 16 bytes (MLX5_SEND_WQE_DS).
const OctowordSize = 16

// SendWQEBB is the size of a send-queue basic block (MLX5_SEND_WQE_BB): a
// WQE occupies whole basic blocks of its queue.
const SendWQEBB = 64

// MaxDS is the largest ds, a 6-bit field: a WQE is at most 63 octowords.
const MaxDS = 0x3f

// checkDS returns ds, a WQE's size in octowords, as its 6-bit field, or a
// *FieldError naming format when it is more than MaxDS.
func checkDS(format string, ds int) (uint8, error) {
	if ds > MaxDS {
		return 0, &FieldError{Format: format, Field: "ds", Value: uint64(ds), Reason: "more than 63 octowords"}
	}
	return uint8(ds), nil
}

// WQEBBs returns how many basic blocks a WQE of ds octowords occupies,
// ceil(16 ds / 64), as the kernel's finish_wqe advances the producer index.
func WQEBBs(ds uint8) int {
	return (int(ds)*OctowordSize + SendWQEBB - 1) / SendWQEBB
}

// wqeErrs gathers the errors of a parse: field errors in order, and the
// reserved bits of every segment with offsets from the start of the whole.
type wqeErrs struct {
	fields []error
	res    []ReservedDword
}

func (e *wqeErrs) field(err error) { e.fields = append(e.fields, err) }

// reserved takes the dwords of a *ReservedBitsError found off bytes in.
func (e *wqeErrs) reserved(off int, err error) {
	var re *ReservedBitsError
	if errors.As(err, &re) {
		for _, d := range re.Dwords {
			e.res = append(e.res, ReservedDword{Offset: off + d.Offset, Bits: d.Bits})
		}
	}
}

// parseSeg decodes the segment of layout l at b[off:] into v, noting its
// set reserved bits in e under the whole's format, offsets from its start.
func parseSeg[T any](l *Layout[T], e *wqeErrs, format string, b []byte, off int, v *T) {
	l.Decode(v, b[off:])
	e.reserved(off, l.checkReserved(format, b[off:]))
}

// err returns the gathered errors: nil, the only one, or all of them
// joined, field errors first.
func (e *wqeErrs) err(format string) error {
	errs := e.fields
	if e.res != nil {
		errs = append(errs, &ReservedBitsError{Format: format, Dwords: e.res})
	}
	return joinErrs(errs...)
}

// joinErrs is errors.Join that returns a lone error as it is.
func joinErrs(errs ...error) error {
	var n []error
	for _, err := range errs {
		if err != nil {
			n = append(n, err)
		}
	}
	switch len(n) {
	case 0:
		return nil
	case 1:
		return n[0]
	}
	return errors.Join(n...)
}

package scenario

import "testing"

// TestOpQP: the QP each kind of operation names.
func TestOpQP(t *testing.T) {
	for _, c := range []struct {
		op   Op
		want uint32
	}{
		{Op{Kind: OpAccess, Access: Access{QPN: 3}}, 3},
		{Op{Kind: OpUMR, UMR: &UMR{QPN: 4}}, 4},
		{Op{Kind: OpLocalInvalidate, QPN: 5}, 5},
		{Op{Kind: OpSendWithInvalidate, QPN: 6}, 6},
		{Op{Kind: OpQueryMKey, Index: 9}, 0},
	} {
		if got := c.op.QP(); got != c.want {
			t.Errorf("%v: QP %d, want %d", c.op.Kind, got, c.want)
		}
	}
}

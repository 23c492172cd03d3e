package tb

import (
	"testing"
	"time"

	"mkeysim/rtl"
)

func TestScratchSteps(t *testing.T) {
	sc := Generate(DefaultWorkload())
	for _, mode := range []int{0, 1, 2} {
		b, _ := New(rtl.DefaultConfig())
		b.Load(sc)
		steps := 0
		active := 0
		ports := b.Eng.Ports()
		if mode >= 1 {
			b.Eng.OnCycle(func(now uint64) {
				steps++
				if mode == 2 {
					for _, p := range ports {
						if p.Len() > 0 || p.HeadValid() {
							active++
						}
						pu, po := p.Activity()
						if pu || po {
							active++
						}
					}
				}
			})
		}
		st := time.Now()
		b.Run(sc.Ops, nil)
		t.Logf("mode %d: %v, steps %d of %d cycles, active %d, ports %d", mode, time.Since(st), steps, b.Eng.Now(), active, len(ports))
	}
}

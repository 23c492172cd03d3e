package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"mkeysim/rtl/linecache"
)

// The parameters of earlier versions: the ones removed, with what replaced
// them, and the older [model] layout's keys whose meaning has changed.

// removed are parameters that are gone, with what replaced them.
var removed = map[string]string{
	"mtt.cache.sets":           "the MTT cache is sized in entries now: mtt.cache.entries = sets x ways x 8 (mtt.cache.entries_per_line)",
	"klm.cache.sets":           "the KLM cache is sized in entries now: klm.cache.entries = sets x ways x 4 (klm.cache.entries_per_line)",
	"pcie.host_latency_cycles": "the host latency is pcie.icm_latency_cycles now (the walks' and the MKC cache's reads), beside pcie.data_latency_cycles (the data path's)",
	"klm.loop_credits":         "the KLM walker has no loop credits: a child reserves a context one level down, of klm.nested_contexts",
}

// Removed says what replaced a parameter that no longer exists (name as
// in a flag, a sweep or a file of today's layout; a model. prefix is
// dropped: a file of the older layout is read with its keys, older).
func Removed(name string) (string, bool) {
	why, ok := removed[strings.TrimPrefix(name, "model.")]
	return why, ok
}

// older holds what a file of the older layout gives in the keys whose
// meaning has changed since. That layout, written by every version
// before the model's parameters moved to the top of the file, had them
// under [model] ([model.mkc_cache], [model.mtt.cache], ...); its keys are
// today's under model., but for these, read with the ranges they had and
// set as today's parameters (apply):
//
//   - model.pcie.host_latency_cycles is pcie.icm_latency_cycles (renamed
//     when the data path got a latency of its own);
//   - model.mtt.cache.sets and model.klm.cache.sets, with ways, sized the
//     MTT and KLM caches in sets x ways lines of 8 MTT or 4 KLM entries:
//     mtt.cache.entries and klm.cache.entries are that many entries;
//   - model.mkc_cache.mshrs counted the loop's MSHRs too: mkc_cache.mshrs
//     is the level-0 ones, mshrs - loop_mshrs.
type older struct {
	Model struct {
		MKCCache struct {
			MSHRs int `toml:"mshrs" range:"2..1024"`
		} `toml:"mkc_cache"`
		MTT struct {
			Cache olderCache `toml:"cache"`
		} `toml:"mtt"`
		KLM struct {
			Cache olderCache `toml:"cache"`
		} `toml:"klm"`
		PCIe struct {
			HostLatencyCycles int `toml:"host_latency_cycles" range:"1..2^16"`
		} `toml:"pcie"`
	} `toml:"model"`
}

// olderCache is an MTT or KLM cache's key of the older layout.
type olderCache struct {
	Sets int `toml:"sets" range:"power of two in 1..2^20"`
}

// The older layout's defaults that today's parameters count otherwise.
const (
	olderMSHRs    = 16 // mkc_cache.mshrs, the loop's 2 among them
	olderMTTSets  = 64 // mtt.cache.sets, of 4 ways of 8 entries
	olderKLMSets  = 32 // klm.cache.sets, of 4 ways of 4 entries
	olderMaxLines = 1 << 20
)

// params are o's keys, by their names in a file (model.mtt.cache.sets).
func (o *older) params() []Param {
	var out []Param
	walk(reflect.ValueOf(o).Elem(), "", false, &out)
	return out
}

// apply sets c's parameters from the older layout's keys that md says
// the file text gives, after today's keys are read: errors name the key,
// its line and what it was.
func (o *older) apply(c *Config, md toml.MetaData, text string) error {
	m := &o.Model
	given := func(key string) bool { return md.IsDefined(strings.Split(key, ".")...) }
	// first is the first of keys that the file gives, "" for none.
	first := func(keys ...string) string {
		for _, k := range keys {
			if given(k) {
				return k
			}
		}
		return ""
	}
	at := func(key string) string { return lineOf(text, strings.Split(key, ".")) }
	twice := func(old, now string) error {
		return fmt.Errorf("%s%s and %s: give one (%s is the older [model] layout's key, %s today's)", at(old), old, now, old, now)
	}

	const host = "model.pcie.host_latency_cycles"
	if given(host) {
		if k := first("pcie.icm_latency_cycles", "model.pcie.icm_latency_cycles"); k != "" {
			return twice(host, k)
		}
		c.Model.PCIe.ICMLatencyCycles = m.PCIe.HostLatencyCycles
	}

	const mshrs, loop = "model.mkc_cache.mshrs", "model.mkc_cache.loop_mshrs"
	switch {
	case given(mshrs) && given("mkc_cache.mshrs"):
		return twice(mshrs, "mkc_cache.mshrs")
	case given("mkc_cache.mshrs"): // today's count, with the loop's apart
	case given(mshrs) || given(loop):
		total, l := olderMSHRs, c.Model.MKCCache.LoopMSHRs
		if given(mshrs) {
			total = m.MKCCache.MSHRs
		}
		if total <= l {
			if given(mshrs) {
				return fmt.Errorf("%s%s = %d: want more than loop_mshrs = %d (in the [model] layout, mshrs counts the loop's MSHRs too)", at(mshrs), mshrs, total, l)
			}
			return fmt.Errorf("%s%s = %d: want fewer than mshrs, %d when not given (in the [model] layout, mshrs counts the loop's MSHRs too)", at(loop), loop, l, total)
		}
		c.Model.MKCCache.MSHRs = total - l
	}

	for _, u := range []struct {
		unit      string
		sets      int
		cache     *linecache.Config
		perLine   int
		sizesWith int // the older layout's sets when the file gives none
	}{
		{"mtt", m.MTT.Cache.Sets, &c.Model.MTT.Cache, 8, olderMTTSets},
		{"klm", m.KLM.Cache.Sets, &c.Model.KLM.Cache, 4, olderKLMSets},
	} {
		sets, ways := "model."+u.unit+".cache.sets", "model."+u.unit+".cache.ways"
		today := first("model."+u.unit+".cache.entries", "model."+u.unit+".cache.entries_per_line", u.unit+".cache.entries", u.unit+".cache.entries_per_line")
		switch {
		case given(sets) && today != "":
			return twice(sets, today)
		case today != "" || !given(sets) && !given(ways):
			continue // today's sizes, or the defaults
		}
		n, w := u.sizesWith, u.cache.Ways
		if given(sets) {
			n = u.sets
		}
		if w < 1 {
			return fmt.Errorf("%s%s = %d: want 1..64 in the [model] layout, sets x ways lines (0, fully associative, is %s.cache.ways with %s.cache.entries)", at(ways), ways, w, u.unit, u.unit)
		}
		if n*w > olderMaxLines {
			key := first(sets, ways)
			return fmt.Errorf("%smodel.%s.cache.sets x ways = %d x %d lines: want at most 2^20", at(key), u.unit, n, w)
		}
		u.cache.Entries, u.cache.EntriesPerLine = n*w*u.perLine, u.perLine
	}
	return nil
}

package iommu

import "mkeysim/pagetable"

// pwc is the page-walk cache: the upper-level entries (pointers to the
// next table) that walks read, kept least recently used first out. An
// entry is named by the space's tag, its level, and the IOVA bits above
// that level's index: a walk of any page below it need not read it.
type pwc struct {
	cap  int
	keys []pwcKey // least recently used first
}

type pwcKey struct {
	tag    uint64
	level  int
	prefix uint64 // iova >> Shift(level+1): which entry of which table
}

func newPWC(entries int) pwc { return pwc{cap: entries} }

func key(tag uint64, level int, iova uint64) pwcKey {
	return pwcKey{tag: tag, level: level, prefix: iova >> pagetable.Shift(level)}
}

// has reports whether the cache holds the entry at level for iova, and
// makes it the most recently used.
func (c *pwc) has(tag uint64, level int, iova uint64) bool {
	k := key(tag, level, iova)
	for i, x := range c.keys {
		if x == k {
			copy(c.keys[i:], c.keys[i+1:])
			c.keys[len(c.keys)-1] = k
			return true
		}
	}
	return false
}

// add keeps the entry at level for iova, evicting the least recently used
// when full.
func (c *pwc) add(tag uint64, level int, iova uint64) {
	if c.cap == 0 || c.has(tag, level, iova) {
		return
	}
	if len(c.keys) == c.cap {
		c.keys = append(c.keys[:0], c.keys[1:]...)
	}
	c.keys = append(c.keys, key(tag, level, iova))
}

// drop forgets every entry of the space tag (an invalidation may have
// emptied tables under them; the walker reads them again).
func (c *pwc) drop(tag uint64) {
	k := 0
	for _, x := range c.keys {
		if x.tag != tag {
			c.keys[k] = x
			k++
		}
	}
	c.keys = c.keys[:k]
}

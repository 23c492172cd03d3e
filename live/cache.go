package live

import "mkeysim/vectors"

// Cache is an MKC cache tag array instance: the mptcache unit.
type Cache struct{ c *vectors.Cache }

// CacheResult is one cache operation's outputs.
type CacheResult struct {
	Hit        bool
	Way        uint8
	Evict      bool
	EvictIndex uint32
	Count      uint32
}

// NewCache returns an empty tag array (vectors.NewCache).
func NewCache(sets, ways int, random bool, prngInit uint64) (*Cache, error) {
	c, err := vectors.NewCache(sets, ways, random, prngInit)
	if err != nil {
		return nil, err
	}
	return &Cache{c: c}, nil
}

// Op applies one operation (vectors.OpLookup ... OpInvalAll) on index.
func (c *Cache) Op(op uint8, index uint32) (CacheResult, error) {
	v := vectors.MPTCacheVector{Op: op, Index: index}
	if err := c.c.Apply(&v); err != nil {
		return CacheResult{}, err
	}
	return CacheResult{Hit: v.Hit, Way: v.Way, Evict: v.Evict, EvictIndex: v.EvictIndex, Count: v.Count}, nil
}

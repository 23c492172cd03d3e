package scenario

import "mkeysim/prm"

// MaxSegments is the most segments an access's result line lists
// (scenario.md, the access row): through KLM keys that point into each
// other a 1 KB scenario can turn one 4 GiB access into 2^26 segments or
// more, so both models translate and check the whole request but keep
// only the first MaxSegments segments, in request order, and count the
// rest ("segments_left_out"). 65,536 segments are at most about 4 MB of
// JSON.
const MaxSegments = 1 << 16

// SegmentSum is a digest of the segments an access leaves out of its
// line, so that two models compare every segment of an access in
// constant memory: each segment is mixed with its byte offset in the
// request and the mixes are added, which makes the sum independent of
// the order in which the segments are added (the clocked model gathers
// them out of order). The zero SegmentSum is the sum of no segments.
type SegmentSum uint64

// Add adds the segment s found at byte offset off of the request.
func (d *SegmentSum) Add(off uint64, s prm.Segment) {
	h := mix(off ^ 0x9e3779b97f4a7c15)
	h = mix(h ^ s.Addr)
	h = mix(h ^ s.Len ^ uint64(s.Space)<<56)
	if s.HasPA { // a segment without one mixes as before issue 36
		h = mix(h ^ s.PA ^ 1<<63)
	}
	*d += SegmentSum(h)
}

// mix is splitmix64's finaliser: every input bit moves every output bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

package netpol

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// span is an inclusive range of IPv4 addresses or ports, as numbers.
type span struct{ lo, hi uint32 }

// spans is a set of numbers kept as sorted, disjoint, non-adjacent spans
// (nft's anonymous interval sets refuse overlapping elements).
type spans []span

// add returns s with [lo, hi] added, merged.
func (s spans) add(lo, hi uint32) spans {
	return append(s, span{lo, hi}).merged()
}

// union returns s with every span of o added.
func (s spans) union(o spans) spans {
	return append(slices.Clone(s), o...).merged()
}

// minus returns s without [lo, hi].
func (s spans) minus(lo, hi uint32) spans {
	var out spans
	for _, x := range s {
		if x.hi < lo || x.lo > hi {
			out = append(out, x)
			continue
		}
		if x.lo < lo {
			out = append(out, span{x.lo, lo - 1})
		}
		if x.hi > hi {
			out = append(out, span{hi + 1, x.hi})
		}
	}
	return out
}

func (s spans) merged() spans {
	slices.SortFunc(s, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	var out spans
	for _, x := range s {
		if n := len(out); n > 0 && (x.lo <= out[n-1].hi || x.lo == out[n-1].hi+1) {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

// contains reports whether v is in s.
func (s spans) contains(v uint32) bool {
	for _, x := range s {
		if v >= x.lo && v <= x.hi {
			return true
		}
	}
	return false
}

// format writes the spans as an nft set ("{ 1, 5-9 }") with each number
// written by f.
func (s spans) format(f func(uint32) string) string {
	parts := make([]string, len(s))
	for i, x := range s {
		if x.lo == x.hi {
			parts[i] = f(x.lo)
		} else {
			parts[i] = f(x.lo) + "-" + f(x.hi)
		}
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func addrSet(s spans) string { return s.format(func(v uint32) string { return u32Addr(v).String() }) }

func portSet(s spans) string { return s.format(func(v uint32) string { return fmt.Sprint(v) }) }

// addrU32 is a as a number; ok is false for anything but IPv4.
func addrU32(a netip.Addr) (uint32, bool) {
	a = a.Unmap()
	if !a.Is4() {
		return 0, false
	}
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), true
}

func u32Addr(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// prefixSpan is the range of addresses of the IPv4 prefix p (its host
// bits ignored, as kube ignores them in an ipBlock).
func prefixSpan(p netip.Prefix) (span, bool) {
	lo, ok := addrU32(p.Masked().Addr())
	if !ok {
		return span{}, false
	}
	size := uint64(1) << (32 - p.Bits())
	return span{lo, uint32(uint64(lo) + size - 1)}, true
}

package nodeipam

import (
	"fmt"
	"math/big"
	"net/netip"
	"sync"
)

// CIDRSet hands out the subnets of size NodeMaskSize of a cluster CIDR,
// except those reserved for nodes that bring their own. It is safe for
// concurrent use.
type CIDRSet struct {
	cluster  netip.Prefix
	maskSize int
	max      int

	mu       sync.Mutex
	used     big.Int // bit i: subnet i is taken
	reserved big.Int // bit i: subnet i is never allocated
	next     int     // where to start looking
	n        int     // how many are taken
}

// NewCIDRSet returns an empty set of the /maskSize subnets of cluster. It
// fails with ErrInvalidConfig when maskSize is not longer than the
// cluster's prefix or would give more than 2^24 subnets.
func NewCIDRSet(cluster netip.Prefix, maskSize int) (*CIDRSet, error) {
	if !cluster.IsValid() {
		return nil, fmt.Errorf("%w: invalid cluster CIDR", ErrInvalidConfig)
	}
	cluster = cluster.Masked()
	bits := cluster.Addr().BitLen()
	if maskSize <= cluster.Bits() || maskSize > bits || maskSize-cluster.Bits() > 24 {
		return nil, fmt.Errorf("%w: node mask size /%d does not fit cluster CIDR %s", ErrInvalidConfig, maskSize, cluster)
	}
	return &CIDRSet{cluster: cluster, maskSize: maskSize, max: 1 << (maskSize - cluster.Bits())}, nil
}

// Size returns how many subnets the set has; Used how many are taken.
func (s *CIDRSet) Size() int { return s.max }

// Used returns how many subnets are taken.
func (s *CIDRSet) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// subnet returns subnet i.
func (s *CIDRSet) subnet(i int) netip.Prefix {
	a := s.cluster.Addr().AsSlice()
	v := new(big.Int).SetBytes(a)
	v.Add(v, new(big.Int).Lsh(big.NewInt(int64(i)), uint(len(a)*8-s.maskSize)))
	b := v.FillBytes(make([]byte, len(a)))
	addr, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(addr, s.maskSize)
}

// index returns the subnet index of p, or ErrOutOfRange.
func (s *CIDRSet) index(p netip.Prefix) (int, error) {
	if p.Bits() != s.maskSize || !s.cluster.Contains(p.Addr()) || p.Masked() != p {
		return 0, fmt.Errorf("%w: %s is not a /%d subnet of %s", ErrOutOfRange, p, s.maskSize, s.cluster)
	}
	base := new(big.Int).SetBytes(s.cluster.Addr().AsSlice())
	v := new(big.Int).SetBytes(p.Addr().AsSlice())
	v.Sub(v, base)
	v.Rsh(v, uint(p.Addr().BitLen()-s.maskSize))
	return int(v.Int64()), nil
}

// Allocate takes the next free subnet, or fails with ErrCIDRsExhausted.
func (s *CIDRSet) Allocate() (netip.Prefix, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.max {
		i := (s.next + k) % s.max
		if s.used.Bit(i) == 0 && s.reserved.Bit(i) == 0 {
			s.used.SetBit(&s.used, i, 1)
			s.n++
			s.next = (i + 1) % s.max
			return s.subnet(i), nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("%w: all %d subnets of %s taken or reserved", ErrCIDRsExhausted, s.max, s.cluster)
}

// Reserve keeps every subnet inside p from being allocated: nodes that
// bring their own pod CIDRs from p still Occupy theirs. p must lie inside
// the cluster CIDR and be no smaller than a subnet, else ErrOutOfRange.
func (s *CIDRSet) Reserve(p netip.Prefix) error {
	if !p.IsValid() || p.Bits() > s.maskSize || p.Bits() < s.cluster.Bits() || !s.cluster.Contains(p.Addr()) {
		return fmt.Errorf("%w: %s is not a range of /%d subnets inside %s", ErrOutOfRange, p, s.maskSize, s.cluster)
	}
	p = p.Masked()
	first, err := s.index(netip.PrefixFrom(p.Addr(), s.maskSize))
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range 1 << (s.maskSize - p.Bits()) {
		s.reserved.SetBit(&s.reserved, first+i, 1)
	}
	return nil
}

// Occupy marks p taken (a node already has it). It reports whether p was
// free before.
func (s *CIDRSet) Occupy(p netip.Prefix) (bool, error) {
	i, err := s.index(p)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used.Bit(i) == 1 {
		return false, nil
	}
	s.used.SetBit(&s.used, i, 1)
	s.n++
	return true, nil
}

// Release frees p; releasing a free or foreign subnet does nothing.
func (s *CIDRSet) Release(p netip.Prefix) {
	i, err := s.index(p)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used.Bit(i) == 1 {
		s.used.SetBit(&s.used, i, 0)
		s.n--
	}
}

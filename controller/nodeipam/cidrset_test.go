package nodeipam

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewCIDRSet(t *testing.T) {
	tests := []struct {
		name    string
		cluster string
		mask    int
		size    int
		wantErr bool
	}{
		{"default", "10.244.0.0/16", 24, 256, false},
		{"unmasked cluster", "10.244.3.7/16", 24, 256, false},
		{"mask not longer", "10.244.0.0/16", 16, 0, true},
		{"mask too long", "10.0.0.0/8", 33, 0, true},
		{"too many subnets", "10.0.0.0/7", 32, 0, true},
		{"ipv6", "fd00::/48", 64, 65536, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewCIDRSet(netip.MustParsePrefix(tt.cluster), tt.mask)
			if tt.wantErr {
				assert.ErrorIs(t, err, ErrInvalidConfig)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.size, s.Size())
		})
	}
	_, err := NewCIDRSet(netip.Prefix{}, 24)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

func TestCIDRSetAllocateOccupyRelease(t *testing.T) {
	s, err := NewCIDRSet(netip.MustParsePrefix("10.244.0.0/22"), 24)
	require.NoError(t, err)
	ok, err := s.Occupy(netip.MustParsePrefix("10.244.1.0/24"))
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = s.Occupy(netip.MustParsePrefix("10.244.1.0/24"))
	require.NoError(t, err)
	assert.False(t, ok, "already taken")
	var got []string
	for range 3 {
		p, err := s.Allocate()
		require.NoError(t, err)
		got = append(got, p.String())
	}
	assert.Equal(t, []string{"10.244.0.0/24", "10.244.2.0/24", "10.244.3.0/24"}, got)
	_, err = s.Allocate()
	assert.ErrorIs(t, err, ErrCIDRsExhausted)
	assert.Equal(t, 4, s.Used())
	s.Release(netip.MustParsePrefix("10.244.2.0/24"))
	s.Release(netip.MustParsePrefix("10.244.2.0/24"))  // twice: no-op
	s.Release(netip.MustParsePrefix("192.168.0.0/24")) // foreign: no-op
	assert.Equal(t, 3, s.Used())
	p, err := s.Allocate()
	require.NoError(t, err)
	assert.Equal(t, "10.244.2.0/24", p.String())

	for _, bad := range []string{"10.245.0.0/24", "10.244.0.0/25", "10.244.0.128/24"} {
		_, err := s.Occupy(netip.PrefixFrom(netip.MustParsePrefix(bad).Addr(), netip.MustParsePrefix(bad).Bits()))
		assert.ErrorIs(t, err, ErrOutOfRange, bad)
	}
}

// TestCIDRSetOutOfRangeMessage: the error names the subnet size and the
// cluster CIDR as two things, not a prefix with two lengths.
func TestCIDRSetOutOfRangeMessage(t *testing.T) {
	s, err := NewCIDRSet(netip.MustParsePrefix("10.244.128.0/17"), 24)
	require.NoError(t, err)
	_, err = s.Occupy(netip.MustParsePrefix("10.244.1.0/24"))
	require.ErrorIs(t, err, ErrOutOfRange)
	assert.Contains(t, err.Error(), "10.244.1.0/24 is not a /24 subnet of 10.244.128.0/17")
	assert.NotContains(t, err.Error(), "/17/24")
}

func TestCIDRSetReserve(t *testing.T) {
	s, err := NewCIDRSet(netip.MustParsePrefix("10.244.0.0/22"), 24)
	require.NoError(t, err)
	require.NoError(t, s.Reserve(netip.MustParsePrefix("10.244.0.0/23")))
	fresh, err := s.Occupy(netip.MustParsePrefix("10.244.1.0/24"))
	require.NoError(t, err)
	assert.True(t, fresh, "a node may bring a reserved CIDR of its own")
	var got []string
	for range 2 {
		p, err := s.Allocate()
		require.NoError(t, err)
		got = append(got, p.String())
	}
	assert.Equal(t, []string{"10.244.2.0/24", "10.244.3.0/24"}, got, "reserved subnets are never allocated")
	_, err = s.Allocate()
	assert.ErrorIs(t, err, ErrCIDRsExhausted)
	s.Release(netip.MustParsePrefix("10.244.1.0/24"))
	_, err = s.Allocate()
	assert.ErrorIs(t, err, ErrCIDRsExhausted, "a released reserved subnet stays reserved")

	for _, bad := range []string{"10.245.0.0/23", "10.244.0.0/25", "10.0.0.0/8", "10.244.0.0/16"} {
		assert.ErrorIs(t, s.Reserve(netip.MustParsePrefix(bad)), ErrOutOfRange, bad)
	}
	require.NoError(t, s.Reserve(netip.MustParsePrefix("10.244.0.0/22")), "the whole cluster CIDR")
}

// FuzzCIDRSetOccupy: whatever prefix comes in, Occupy either rejects it
// or takes exactly one subnet, which Allocate then never hands out.
func FuzzCIDRSetOccupy(f *testing.F) {
	f.Add("10.244.7.0/24")
	f.Add("10.244.0.0/16")
	f.Add("::1/128")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := netip.ParsePrefix(in)
		if err != nil {
			return
		}
		s, err := NewCIDRSet(netip.MustParsePrefix("10.244.0.0/20"), 24)
		require.NoError(t, err)
		ok, err := s.Occupy(p)
		if err != nil {
			assert.ErrorIs(t, err, ErrOutOfRange)
			assert.Zero(t, s.Used())
			return
		}
		require.True(t, ok)
		for range s.Size() - 1 {
			q, err := s.Allocate()
			require.NoError(t, err)
			require.NotEqual(t, p, q)
		}
		_, err = s.Allocate()
		require.ErrorIs(t, err, ErrCIDRsExhausted)
	})
}

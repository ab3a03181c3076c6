package nodeipam_test

import (
	"fmt"
	"net/netip"

	"github.com/orkit/orkit/controller/nodeipam"
)

// Existing nodes' CIDRs are occupied first; new nodes get the free ones.
func ExampleCIDRSet() {
	s, _ := nodeipam.NewCIDRSet(nodeipam.DefaultClusterCIDR, nodeipam.DefaultNodeMaskSize)
	_, _ = s.Occupy(netip.MustParsePrefix("10.244.0.0/24"))
	a, _ := s.Allocate()
	b, _ := s.Allocate()
	fmt.Println(a, b, s.Used(), s.Size())
	// Output: 10.244.1.0/24 10.244.2.0/24 3 256
}

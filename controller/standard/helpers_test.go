package standard_test

import (
	"net/netip"

	"github.com/orkit/orkit/controller/nodeipam"
)

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// nodeipamBadMask is a node IPAM config whose node mask is wider than its
// cluster CIDR.
func nodeipamBadMask() nodeipam.Config {
	return nodeipam.Config{ClusterCIDR: mustPrefix("10.244.0.0/16"), NodeMaskSize: 8}
}

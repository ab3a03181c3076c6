package hostgw_test

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/hostgw"
)

func exampleNode(name, ip, cidr string) *core.Node {
	return &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: core.NodeSpec{PodCIDR: cidr},
		Status: core.NodeStatus{Addresses: []core.NodeAddress{{Type: core.NodeInternalIP, Address: ip}}}}
}

func ExampleDesired() {
	nodes := []*core.Node{
		exampleNode("node-1", "10.250.0.11", "10.244.1.0/24"),
		exampleNode("node-2", "10.250.0.12", "10.244.2.0/24"),
		exampleNode("node-3", "10.250.0.13", "10.244.3.0/24"),
		exampleNode("laptop", "127.0.0.1", "10.244.9.0/24"), // shares no network with node-1
	}
	routes, skipped := hostgw.Desired("node-1", nodes)
	for _, r := range routes {
		fmt.Println(r, "for", r.Node)
	}
	for _, s := range skipped {
		fmt.Println("no route for", s.Node+":", s.Reason)
	}
	// Output:
	// 10.244.2.0/24 via 10.250.0.12 for node-2
	// 10.244.3.0/24 via 10.250.0.13 for node-3
	// no route for laptop: pod CIDR 10.244.9.0/24: InternalIP 127.0.0.1 is not reachable from another host
}

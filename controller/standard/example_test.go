package standard_test

import (
	"context"
	"net/netip"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/localpath"
	"github.com/orkit/orkit/controller/nodeipam"
	"github.com/orkit/orkit/controller/servicelb"
	"github.com/orkit/orkit/controller/standard"
)

// A controller manager with the standard controllers: what differs
// between clusters goes in the Config, the rest are defaults.
func ExampleAdd() {
	cfg, err := client.ConfigFromKubeconfig("controller-manager.kubeconfig", "")
	if err != nil {
		return // (no kubeconfig in this example)
	}
	c, err := client.New(cfg)
	if err != nil {
		panic(err)
	}
	m, err := controller.NewManager(controller.ManagerConfig{Client: c})
	if err != nil {
		panic(err)
	}
	lb, err := servicelb.NewLoopback(netip.MustParsePrefix("127.0.100.0/24"))
	if err != nil {
		panic(err)
	}
	if _, err := standard.Add(m, standard.Config{
		NodeIPAM:  nodeipam.Config{ClusterCIDR: netip.MustParsePrefix("10.244.0.0/16")},
		ServiceLB: servicelb.Config{Provider: lb},
		LocalPath: localpath.Config{BaseDir: "/var/lib/orkit/local-path"},
		Disabled:  []string{"cronjob"},
	}); err != nil {
		panic(err)
	}
	_ = m.Run(context.Background()) // until the context ends
}

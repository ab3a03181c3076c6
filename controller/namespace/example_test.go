package namespace_test

import (
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/namespace"
)

// The namespace controller is made on a Manager like every built-in
// controller; it writes the finalize subresource through the manager's
// client.
func ExampleNew() {
	cfg, err := client.ConfigFromKubeconfig("controller-manager.kubeconfig", "")
	if err != nil {
		return // (no kubeconfig in this example)
	}
	c, _ := client.New(cfg)
	m, _ := controller.NewManager(controller.ManagerConfig{Client: c})
	nc, err := namespace.New(m, namespace.Config{})
	if err != nil {
		panic(err)
	}
	_ = m.Add(nc)
	// go m.Run(ctx)
}

package namespace_test

import (
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/namespace"
)

// The namespace controller needs a Finalizer for the finalize
// subresource; HTTPFinalizer uses the same credentials as the client.
func ExampleNew() {
	cfg, err := client.ConfigFromKubeconfig("controller-manager.kubeconfig", "")
	if err != nil {
		return // (no kubeconfig in this example)
	}
	c, _ := client.New(cfg)
	fin, err := namespace.NewHTTPFinalizer(cfg)
	if err != nil {
		panic(err)
	}
	m, _ := controller.NewManager(controller.ManagerConfig{Client: c})
	nc, _, err := namespace.New(m, namespace.Options{Finalizer: fin})
	if err != nil {
		panic(err)
	}
	_ = m.Add(nc)
	// go m.Run(ctx)
}

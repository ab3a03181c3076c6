package garbagecollector_test

import (
	"time"

	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/garbagecollector"
)

// The collector is made on a Manager, as every built-in controller is; it
// follows every resource with dynamic informers of its own and runs while
// the manager leads.
func ExampleNew() {
	var m *controller.Manager // from controller.NewManager, its client as system:kube-controller-manager
	gc, err := garbagecollector.New(m, garbagecollector.Config{DiscoveryPeriod: time.Minute})
	if err != nil {
		return // a manager is required
	}
	_ = m.Add(gc)
}

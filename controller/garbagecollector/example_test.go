package garbagecollector_test

import (
	"context"
	"log/slog"
	"time"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller/garbagecollector"
)

// The collector runs on its own (it follows every resource with its own
// dynamic informers), usually next to a Manager or added to one.
func ExampleNew() {
	var c *client.Client // from client.New, as system:kube-controller-manager
	gc, err := garbagecollector.New(garbagecollector.Options{Client: c, DiscoveryPeriod: time.Minute, Logger: slog.Default()})
	if err != nil {
		return // a client is required
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = gc.Run(ctx) }() // or manager.Add(gc)
}

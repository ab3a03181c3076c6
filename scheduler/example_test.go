package scheduler_test

import (
	"context"
	"log"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// ExampleNew runs the scheduler with the default profile plus a second
// profile that adds a custom predicate, until ctx ends.
func ExampleNew() {
	cfg, err := client.ConfigFromKubeconfig("scheduler.kubeconfig", "")
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	racks := plugins.DefaultProfile("rack-scheduler")
	racks.Predicates = append(racks.Predicates, rackOnly{})
	s, err := scheduler.New(scheduler.Config{
		Client:   c,
		Profiles: []framework.Profile{plugins.DefaultProfile(""), racks},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

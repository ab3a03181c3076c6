package replicaset_test

import (
	"fmt"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/replicaset"
)

// A ReplicaSet growing from 0 to 10 creates its pods in batches of 1,
// 2, 4 and the rest; a failing batch stops the others.
func ExampleSlowStartBatches() {
	fmt.Println(replicaset.SlowStartBatches(10, replicaset.DefaultBurst))
	fmt.Println(replicaset.SlowStartBatches(1000, replicaset.DefaultBurst))
	// Output:
	// [1 2 4 3]
	// [1 2 4 8 16 32 64 128 256 489]
}

// Wiring the controller into a manager by hand.
func ExampleNew() {
	var c *client.Client // from client.New
	if c == nil {
		return // (no server in this example)
	}
	m, _ := controller.NewManager(controller.ManagerConfig{Client: c})
	rc, err := replicaset.New(m, replicaset.Config{})
	if err != nil {
		panic(err)
	}
	_ = m.Add(rc)
	// go m.Run(ctx)
}

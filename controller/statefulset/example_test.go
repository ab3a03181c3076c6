package statefulset_test

import (
	"fmt"
	"log/slog"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/statefulset"
)

// Pods and claims of a set have stable names derived from the ordinal.
func ExamplePodName() {
	set := &apps.StatefulSet{ObjectMeta: meta.ObjectMeta{Name: "web"}}
	fmt.Println(statefulset.PodName(set, 2), statefulset.ClaimName(set, "data", 2))
	ord, ok := statefulset.ParseOrdinal(set, "web-10")
	fmt.Println(ord, ok)
	_, ok = statefulset.ParseOrdinal(set, "web-010")
	fmt.Println(ok)
	// Output:
	// web-2 data-web-2
	// 10 true
	// false
}

// Wiring: the controller runs on a Manager's shared informers.
func ExampleNew() {
	var c *client.Client // from client.New
	m, err := controller.NewManager(controller.ManagerConfig{Client: c})
	if err != nil {
		return // a manager needs a client
	}
	sts, err := statefulset.New(m, statefulset.Config{Workers: 2, Logger: slog.Default()})
	if err != nil {
		return
	}
	_ = m.Add(sts) // then m.Run(ctx)
}

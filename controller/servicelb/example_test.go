package servicelb_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller/servicelb"
)

// The loopback provider gives each LoadBalancer Service an address of
// its pool.
func ExampleLoopback() {
	lb, _ := servicelb.NewLoopback(netip.MustParsePrefix("127.0.1.0/29"))
	for _, name := range []string{"web", "api"} {
		svc := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: name}}
		ing, _ := lb.EnsureLoadBalancer(context.Background(), svc, nil)
		fmt.Println(name, ing[0].IP)
	}
	// Output:
	// web 127.0.1.1
	// api 127.0.1.2
}

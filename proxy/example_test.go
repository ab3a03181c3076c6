package proxy_test

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/proxy"
)

// ExampleDiff renders two states and prints the commands of the
// incremental update: one endpoint of two removed.
func ExampleDiff() {
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: core.ServiceSpec{ClusterIP: "10.96.0.20", Ports: []core.ServicePort{{Name: "http", Port: 80}}}}
	eps := func(ips ...string) *core.Endpoints {
		ss := core.EndpointSubset{Ports: []core.EndpointPort{{Name: "http", Port: 8080}}}
		for _, ip := range ips {
			ss.Addresses = append(ss.Addresses, core.EndpointAddress{IP: ip})
		}
		return &core.Endpoints{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web"}, Subsets: []core.EndpointSubset{ss}}
	}
	before := proxy.Render([]*core.Service{svc}, []*core.Endpoints{eps("10.244.0.2", "10.244.0.3")})
	after := proxy.Render([]*core.Service{svc}, []*core.Endpoints{eps("10.244.0.2")})
	for k := range before.ServiceIPs {
		fmt.Println(k)
	}
	for _, line := range strings.Split(strings.TrimSpace(proxy.Diff(before, after)), "\n") {
		fields := strings.Fields(line)
		fmt.Println(fields[0], fields[1], fields[4][:strings.IndexByte(fields[4], '-')]) // the verb and the kind of chain touched
	}
	// Output:
	// 10.96.0.20 . tcp . 80
	// flush chain ep
	// flush chain svc
	// add rule svc
	// delete chain ep
}

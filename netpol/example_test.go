package netpol_test

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/netpol"
)

// ExampleRender: a policy lets pods labelled app=client reach the web pod
// on TCP 8080; the web pod gets an ingress chain that allows itself, the
// client on that port, and drops the rest.
func ExampleRender() {
	web := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}},
		Status: core.PodStatus{Phase: core.PodRunning, PodIP: "10.244.1.2"}}
	cl := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "client", Labels: map[string]string{"app": "client"}},
		Status: core.PodStatus{Phase: core.PodRunning, PodIP: "10.244.1.3"}}
	port := meta.FromInt(8080)
	np := &networking.NetworkPolicy{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "allow-client"},
		Spec: networking.NetworkPolicySpec{
			PodSelector: meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Ingress: []networking.NetworkPolicyIngressRule{{
				From:  []networking.NetworkPolicyPeer{{PodSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "client"}}}},
				Ports: []networking.NetworkPolicyPort{{Port: &port}},
			}},
		}}
	rs := netpol.Render([]*networking.NetworkPolicy{np}, []*core.Pod{web, cl}, nil, nil)
	for ip, chain := range rs.Ingress {
		fmt.Println("isolated for ingress:", ip)
		for _, rule := range rs.Chains[chain] {
			fmt.Println(" ", rule)
		}
	}
	fmt.Println("isolated for egress:", len(rs.Egress))
	// Output:
	// isolated for ingress: 10.244.1.2
	//   ip saddr 10.244.1.2 return
	//   ip saddr { 10.244.1.3 } meta l4proto tcp th dport { 8080 } return
	//   drop
	// isolated for egress: 0
}

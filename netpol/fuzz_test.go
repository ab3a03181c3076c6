package netpol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/networking"
)

// FuzzRender: any policy the API server would accept renders without
// panicking, every chain ends in drop, and no nft set is empty (nft
// refuses "{ }").
func FuzzRender(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"name":"p","namespace":"default"},"spec":{"podSelector":{}}}`,
		`{"metadata":{"name":"p","namespace":"default"},"spec":{"podSelector":{"matchLabels":{"app":"web"}},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}],"ports":[{"port":80,"endPort":90}]}]}}`,
		`{"metadata":{"name":"p","namespace":"default"},"spec":{"podSelector":{},"egress":[{"to":[{"namespaceSelector":{},"podSelector":{"matchExpressions":[{"key":"app","operator":"Exists"}]}}],"ports":[{"port":"http","protocol":"UDP"}]}]}}`,
		`{"metadata":{"name":"p","namespace":"default"},"spec":{"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"0.0.0.0/0","except":["0.0.0.0/1","128.0.0.0/1"]}}]}]}}`,
	} {
		f.Add([]byte(seed))
	}
	pods := []*core.Pod{
		pod("default", "web", "10.244.1.2", "n", map[string]string{"app": "web"}, core.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: core.ProtocolUDP}),
		pod("default", "c", "10.244.1.3", "n", nil),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var np networking.NetworkPolicy
		if json.Unmarshal(data, &np) != nil {
			return
		}
		networking.DefaultNetworkPolicy(&np)
		if len(networking.ValidateNetworkPolicy(&np)) > 0 {
			return
		}
		rs := Render([]*networking.NetworkPolicy{&np}, pods, nil, nil)
		for name, rules := range rs.Chains {
			if len(rules) == 0 || rules[len(rules)-1] != "drop" {
				t.Fatalf("chain %s does not end in drop: %q", name, rules)
			}
		}
		if s := rs.Script(); strings.Contains(s, "{ }") {
			t.Fatalf("empty set in script:\n%s", s)
		}
	})
}

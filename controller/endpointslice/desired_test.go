package endpointslice

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
)

func pod(name, ip string, ready bool, change ...func(*core.Pod)) *core.Pod {
	status := meta.ConditionFalse
	if ready {
		status = meta.ConditionTrue
	}
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", UID: meta.UID("uid-" + name)},
		Spec: core.PodSpec{NodeName: "node-1", Containers: []core.Container{{Name: "c",
			Ports: []core.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
		Status: core.PodStatus{Phase: core.PodRunning, PodIP: ip, Conditions: []core.PodCondition{{Type: core.PodReady, Status: status}}}}
	for _, f := range change {
		f(p)
	}
	return p
}

// summary renders groups as "IPv4 http/TCP/8080: 10.0.0.1(R S -T) ...".
func summary(gs []*group) []string {
	var out []string
	for _, g := range gs {
		var b strings.Builder
		b.WriteString(string(g.addressType))
		for _, p := range g.ports {
			b.WriteString(" " + p.NameValue() + "/" + string(p.ProtocolValue()) + "/" + itoa(p.PortValue()))
		}
		b.WriteString(":")
		for _, e := range g.endpoints {
			b.WriteString(" " + e.Addresses[0] + "(" + flag("R", e.Conditions.Ready) + flag("S", e.Conditions.Serving) + flag("T", e.Conditions.Terminating) + ")")
		}
		out = append(out, b.String())
	}
	return out
}

func itoa(v int32) string { return strconv.Itoa(int(v)) }

func flag(name string, v *bool) string {
	switch {
	case v == nil:
		return "?" + name
	case *v:
		return name
	}
	return "-" + name
}

func TestPodGroups(t *testing.T) {
	web := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: core.ServiceSpec{Ports: []core.ServicePort{{Name: "http", Port: 80, TargetPort: meta.FromString("http")}}}}
	now := meta.Now()
	tests := []struct {
		name    string
		publish bool
		pods    []*core.Pod
		want    []string
	}{
		{"ready and not, sorted by address", false, []*core.Pod{pod("b", "10.0.0.2", false), pod("a", "10.0.0.1", true)},
			[]string{"IPv4 http/TCP/8080: 10.0.0.1(RS-T) 10.0.0.2(-R-S-T)"}},
		{"no IP, terminal: left out", false, []*core.Pod{pod("a", "", true),
			pod("b", "10.0.0.2", true, func(p *core.Pod) { p.Status.Phase = core.PodSucceeded })}, nil},
		{"terminating: serving, not ready", false, []*core.Pod{pod("a", "10.0.0.1", true, func(p *core.Pod) { p.DeletionTimestamp = &now })},
			[]string{"IPv4 http/TCP/8080: 10.0.0.1(-RST)"}},
		{"publishNotReadyAddresses: ready and serving", true, []*core.Pod{pod("a", "10.0.0.1", false, func(p *core.Pod) { p.DeletionTimestamp = &now })},
			[]string{"IPv4 http/TCP/8080: 10.0.0.1(RST)"}},
		{"named port resolved per pod: two groups", false, []*core.Pod{pod("a", "10.0.0.1", true),
			pod("b", "10.0.0.2", true, func(p *core.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 9090 })},
			[]string{"IPv4 http/TCP/8080: 10.0.0.1(RS-T)", "IPv4 http/TCP/9090: 10.0.0.2(RS-T)"}},
		{"pod without the named port", false, []*core.Pod{pod("a", "10.0.0.1", true, func(p *core.Pod) { p.Spec.Containers[0].Ports = nil })}, nil},
		{"dual stack: a slice per family", false, []*core.Pod{pod("a", "10.0.0.1", true, func(p *core.Pod) {
			p.Status.PodIPs = []core.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}
		})}, []string{"IPv4 http/TCP/8080: 10.0.0.1(RS-T)", "IPv6 http/TCP/8080: fd00::1(RS-T)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := meta.DeepCopy(web)
			svc.Spec.PublishNotReadyAddresses = tt.publish
			assert.Equal(t, tt.want, summary(podGroups(svc, tt.pods)))
		})
	}
}

func TestPodEndpointFields(t *testing.T) {
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}}
	p := pod("web-0", "10.0.0.1", true, func(p *core.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web-0", "web" })
	ep := podEndpoint(svc, p, "10.0.0.1")
	require.NotNil(t, ep.Hostname)
	assert.Equal(t, "web-0", *ep.Hostname)
	assert.Equal(t, "node-1", *ep.NodeName)
	assert.Equal(t, &core.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0", UID: "uid-web-0"}, ep.TargetRef)
	p.Spec.Subdomain = "other"
	assert.Nil(t, podEndpoint(svc, p, "10.0.0.1").Hostname, "hostname only under its own subdomain")
}

func TestMirrorGroups(t *testing.T) {
	ep := &core.Endpoints{Subsets: []core.EndpointSubset{{
		Addresses:         []core.EndpointAddress{{IP: "10.0.0.2"}, {IP: "not-an-ip"}, {IP: "10.0.0.1", Hostname: "h"}},
		NotReadyAddresses: []core.EndpointAddress{{IP: "10.0.0.3"}},
		Ports:             []core.EndpointPort{{Name: "dns", Port: 53, Protocol: core.ProtocolUDP}, {Name: "dns-tcp", Port: 53}},
	}}}
	assert.Equal(t, []string{"IPv4 dns/UDP/53 dns-tcp/TCP/53: 10.0.0.1(R?S?T) 10.0.0.2(R?S?T) 10.0.0.3(-R?S?T)"},
		summary(mirrorGroups(ep)))
	got := mirrorGroups(ep)
	require.Len(t, got, 1)
	require.Len(t, got[0].endpoints, 3)
	assert.True(t, got[0].endpoints[0].IsReady())
	assert.Equal(t, "h", *got[0].endpoints[0].Hostname)
	assert.False(t, got[0].endpoints[2].IsReady())
}

func TestChunksAndNames(t *testing.T) {
	g := &group{addressType: discovery.AddressTypeIPv4}
	for range 5 {
		g.endpoints = append(g.endpoints, discovery.Endpoint{Addresses: []string{"10.0.0.1"}})
	}
	cs := chunks([]*group{g}, 2)
	require.Len(t, cs, 3)
	assert.Len(t, cs[2].endpoints, 1)
	long := target{service: strings.Repeat("a", 63)}
	assert.Len(t, long.namePrefix(), 57)
	assert.Equal(t, "web-", (&target{service: "web"}).namePrefix())
}

func TestConfig(t *testing.T) {
	_, err := Config{}.withDefaults(nil)
	require.ErrorIs(t, err, ErrInvalidConfig)
}

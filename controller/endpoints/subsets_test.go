package endpoints

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func pod(name, ip string, ready bool, ports ...core.ContainerPort) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID("uid-" + name)},
		Spec:   core.PodSpec{NodeName: "n1", Containers: []core.Container{{Name: "c", Ports: ports}}},
		Status: core.PodStatus{Phase: core.PodRunning, PodIP: ip}}
	st := meta.ConditionFalse
	if ready {
		st = meta.ConditionTrue
	}
	p.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: st}}
	return p
}

func TestSubsets(t *testing.T) {
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: core.ServiceSpec{Ports: []core.ServicePort{
		{Name: "http", Port: 80, TargetPort: meta.FromString("http")},
		{Name: "metrics", Port: 9090, TargetPort: meta.FromInt(9100)},
	}}}
	http := core.ContainerPort{Name: "http", ContainerPort: 8080}
	deleted := pod("gone", "10.0.0.9", true, http)
	now := meta.Now()
	deleted.DeletionTimestamp = &now
	failed := pod("failed", "10.0.0.8", false, http)
	failed.Status.Phase = core.PodFailed
	pods := []*core.Pod{
		pod("b", "10.0.0.2", true, http), pod("a", "10.0.0.1", true, http), pod("c", "10.0.0.3", false, http),
		pod("noname", "10.0.0.4", true), pod("noip", "", true, http), deleted, failed,
	}
	got := Subsets(svc, pods)
	if !assert.Len(t, got, 2) {
		return
	}
	// The pod without the named port serves only metrics.
	assert.Equal(t, []core.EndpointPort{{Name: "http", Port: 8080, Protocol: "TCP"}, {Name: "metrics", Port: 9100, Protocol: "TCP"}}, got[0].Ports)
	ips := func(as []core.EndpointAddress) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.IP)
		}
		return out
	}
	assert.Equal(t, []string{"10.0.0.1", "10.0.0.2"}, ips(got[0].Addresses))
	assert.Equal(t, []string{"10.0.0.3"}, ips(got[0].NotReadyAddresses))
	assert.Equal(t, []core.EndpointPort{{Name: "metrics", Port: 9100, Protocol: "TCP"}}, got[1].Ports)
	assert.Equal(t, []string{"10.0.0.4"}, ips(got[1].Addresses))
	a := got[0].Addresses[0]
	assert.Equal(t, "n1", *a.NodeName)
	assert.Equal(t, &core.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "a", UID: "uid-a"}, a.TargetRef)

	// publishNotReadyAddresses: everything with an IP is an address.
	svc.Spec.PublishNotReadyAddresses = true
	got = Subsets(svc, pods)
	assert.Equal(t, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.9"}, ips(got[0].Addresses))
	assert.Empty(t, got[0].NotReadyAddresses)
}

func TestResolvePort(t *testing.T) {
	p := pod("a", "10.0.0.1", true, core.ContainerPort{Name: "dns", ContainerPort: 53, Protocol: core.ProtocolUDP})
	tests := []struct {
		name string
		sp   core.ServicePort
		want int32
		ok   bool
	}{
		{"number", core.ServicePort{Port: 80, TargetPort: meta.FromInt(8080)}, 8080, true},
		{"unset is the port", core.ServicePort{Port: 80}, 80, true},
		{"name and protocol", core.ServicePort{Port: 53, Protocol: core.ProtocolUDP, TargetPort: meta.FromString("dns")}, 53, true},
		{"name, other protocol", core.ServicePort{Port: 53, TargetPort: meta.FromString("dns")}, 0, false},
		{"missing name", core.ServicePort{Port: 53, TargetPort: meta.FromString("nope")}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ResolvePort(p, &tt.sp)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

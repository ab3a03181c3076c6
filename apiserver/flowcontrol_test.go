package apiserver

import (
	"testing"

	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
)

func TestPriorityLevelFor(t *testing.T) {
	res := func(verb, group, resource, ns string) *RequestInfo {
		return &RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Namespace: ns}
	}
	user := func(name string, groups ...string) *authn.User {
		return &authn.User{Name: name, Groups: append(groups, authn.GroupAuthenticated)}
	}
	node := user("system:node:n1", "system:nodes")
	tests := []struct {
		name string
		u    *authn.User
		info *RequestInfo
		want string
	}{
		{"masters are exempt", user("admin", authn.GroupMasters), res("list", "", "pods", ""), PriorityLevelExempt},
		{"a node on nodes", node, res("update", "", "nodes", ""), PriorityLevelNodeHigh},
		{"a node on its lease", node, res("update", "coordination.k8s.io", "leases", "kube-node-lease"), PriorityLevelNodeHigh},
		{"a node on pods", node, res("list", "", "pods", ""), PriorityLevelSystem},
		{"scheduler leader election", user("system:kube-scheduler"), res("update", "coordination.k8s.io", "leases", "kube-system"), PriorityLevelLeaderElection},
		{"scheduler otherwise", user("system:kube-scheduler"), res("create", "", "pods", "default"), PriorityLevelWorkloadHigh},
		{"controller manager", user("system:kube-controller-manager"), res("list", "apps", "deployments", ""), PriorityLevelWorkloadHigh},
		{"kube-system service account", user("system:serviceaccount:kube-system:coredns", "system:serviceaccounts"), res("list", "", "services", ""), PriorityLevelWorkloadHigh},
		{"other service account", user("system:serviceaccount:team:app", "system:serviceaccounts"), res("list", "", "pods", "team"), PriorityLevelWorkloadLow},
		{"a person", user("alice", "developers"), res("list", "", "pods", "team"), PriorityLevelGlobalDefault},
		{"anonymous", &authn.User{Name: "system:anonymous", Groups: []string{authn.GroupUnauthenticated}}, res("get", "", "pods", "x"), PriorityLevelGlobalDefault},
		{"in no group", &authn.User{Name: "odd"}, res("get", "", "pods", "x"), PriorityLevelCatchAll},
		{"no user", nil, nil, PriorityLevelCatchAll},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, priorityLevelFor(tt.u, tt.info))
		})
	}
}

func TestFlowControlSeats(t *testing.T) {
	f := newFlowControl(400)
	// ceil(400 × shares / 245), as kube-apiserver's nominal concurrency.
	want := map[string]int{PriorityLevelSystem: 49, PriorityLevelNodeHigh: 66, PriorityLevelLeaderElection: 17,
		PriorityLevelWorkloadHigh: 66, PriorityLevelWorkloadLow: 164, PriorityLevelGlobalDefault: 33, PriorityLevelCatchAll: 9}
	for level, n := range want {
		assert.Equal(t, n, cap(f.seats[level]), level)
	}
	f = newFlowControl(1)
	for level, seats := range f.seats {
		assert.Equal(t, 1, cap(seats), "every level has a seat: %s", level)
	}
	admin := &authn.User{Name: "a", Groups: []string{authn.GroupMasters}}
	for range 1000 {
		_, _, ok := f.acquire(admin, nil)
		assert.True(t, ok, "exempt is never full")
	}
	alice := &authn.User{Name: "alice", Groups: []string{authn.GroupAuthenticated}}
	level, release, ok := f.acquire(alice, nil)
	assert.True(t, ok)
	assert.Equal(t, PriorityLevelGlobalDefault, level)
	_, _, ok = f.acquire(alice, nil)
	assert.False(t, ok, "the level's only seat is taken")
	release()
	_, release, ok = f.acquire(alice, nil)
	assert.True(t, ok, "a released seat is free again")
	release()
}

package apiserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/authn"
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
		assert.Equal(t, n, f.levels[level].seats, level)
	}
	f = newFlowControl(1)
	for level, l := range f.levels {
		assert.Equal(t, 1, l.seats, "every level has a seat: %s", level)
	}
	ctx := context.Background()
	admin := &authn.User{Name: "a", Groups: []string{authn.GroupMasters}}
	for range 1000 {
		_, _, err := f.acquire(ctx, admin, nil)
		assert.NoError(t, err, "exempt is never full")
	}
	alice := &authn.User{Name: "alice", Groups: []string{authn.GroupAuthenticated}}
	level, release, err := f.acquire(ctx, alice, nil)
	require.NoError(t, err)
	assert.Equal(t, PriorityLevelGlobalDefault, level)

	f.waitLimit = time.Millisecond // the outcome, not the time, is what is tested
	_, _, err = f.acquire(ctx, alice, nil)
	assert.ErrorIs(t, err, errLevelFull, "no seat came free while it waited")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = f.acquire(cancelled, alice, nil)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, f.waiting(level), "who gave up left the queue")
	release()
	_, release, err = f.acquire(ctx, alice, nil)
	require.NoError(t, err, "a released seat is free again")
	release()
}

// TestFlowControlFairQueuing: with the level's one seat taken, a request
// queued by bob is served before alice's that were queued earlier: seats
// go round-robin among flows, not first come first served; a full queue
// is refused at once.
func TestFlowControlFairQueuing(t *testing.T) {
	f := newFlowControl(1)
	ctx := context.Background()
	user := func(name string) *authn.User {
		return &authn.User{Name: name, Groups: []string{authn.GroupAuthenticated}}
	}
	_, hold, err := f.acquire(ctx, user("alice"), nil)
	require.NoError(t, err)

	served := make(chan string, 8)
	var wg sync.WaitGroup
	start := func(name string) {
		n := f.waiting(PriorityLevelGlobalDefault)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, release, err := f.acquire(ctx, user(name), nil)
			if assert.NoError(t, err) {
				served <- name
				release()
			}
		}()
		deadline := time.Now().Add(10 * time.Second) // queued in this order
		for f.waiting(PriorityLevelGlobalDefault) == n {
			require.True(t, time.Now().Before(deadline), "%s never queued", name)
			time.Sleep(time.Millisecond)
		}
	}
	for _, name := range []string{"alice-1", "alice-1", "alice-1", "bob"} {
		start(name)
	}
	// alice-1's three requests share one flow: after the first, bob's turn.
	hold()
	wg.Wait()
	close(served)
	var order []string
	for name := range served {
		order = append(order, name)
	}
	assert.Equal(t, []string{"alice-1", "bob", "alice-1", "alice-1"}, order)

	// A flow with queueLengthLimit waiting is refused without waiting.
	_, hold, err = f.acquire(ctx, user("carol"), nil)
	require.NoError(t, err)
	l := f.levels[PriorityLevelGlobalDefault]
	for range queueLengthLimit {
		_, ok := l.take("user:dave")
		require.True(t, ok)
	}
	_, _, err = f.acquire(ctx, user("dave"), nil)
	assert.ErrorIs(t, err, errLevelFull)
	hold()
}

package apiserver

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
)

// Priority levels: the in-flight limit split by who asks, as
// kube-apiserver's API Priority and Fairness splits its concurrency among
// the bootstrap PriorityLevelConfigurations
// (flowcontrol.apiserver.k8s.io/v1), so a flood from ordinary users or
// service accounts cannot take the seats the nodes and the control plane
// need, and system:masters is never limited (the exempt level). Each
// level's seats are Config.MaxInFlight × its nominal concurrency shares /
// the sum of all shares, rounded up (at least one). Requests are matched
// to a level by the bootstrap FlowSchemas' rules in their precedence. A
// request finding its level full queues fairly (below) and is refused
// with 429 and Retry-After: 1 only when its queue is full or it waited
// too long. The levels and schemas are built in, not served as API
// objects.

// Names of the priority levels, as in Kubernetes' bootstrap configuration.
const (
	PriorityLevelExempt         = "exempt"
	PriorityLevelSystem         = "system"
	PriorityLevelNodeHigh       = "node-high"
	PriorityLevelLeaderElection = "leader-election"
	PriorityLevelWorkloadHigh   = "workload-high"
	PriorityLevelWorkloadLow    = "workload-low"
	PriorityLevelGlobalDefault  = "global-default"
	PriorityLevelCatchAll       = "catch-all"
)

// priorityShares are the bootstrap nominal concurrency shares.
var priorityShares = []struct {
	name   string
	shares int
}{
	{PriorityLevelSystem, 30}, {PriorityLevelNodeHigh, 40}, {PriorityLevelLeaderElection, 10},
	{PriorityLevelWorkloadHigh, 40}, {PriorityLevelWorkloadLow, 100}, {PriorityLevelGlobalDefault, 20},
	{PriorityLevelCatchAll, 5},
}

// Queuing, as kube-apiserver's API Priority and Fairness queues: a
// request finding its level's seats taken waits in its flow's queue (a
// flow is the user, or the namespace for service accounts, as the
// bootstrap FlowSchemas distinguish them) for up to queueWaitLimit; a
// freed seat goes to the next flow in round-robin order, so one flow's
// flood cannot keep another flow of the same level waiting behind it. A
// request whose flow already has queueLengthLimit waiting, or that waits
// past the limit, gets 429.
const (
	queueLengthLimit = 50
	queueWaitLimit   = 15 * time.Second
)

// flowControl holds one seat pool with fair queues per limited priority
// level. Built once by New; safe for concurrent use.
type flowControl struct {
	levels    map[string]*priorityLevel
	waitLimit time.Duration
}

// newFlowControl splits total seats among the levels by their shares.
func newFlowControl(total int) *flowControl {
	sum := 0
	for _, l := range priorityShares {
		sum += l.shares
	}
	f := &flowControl{levels: make(map[string]*priorityLevel, len(priorityShares)), waitLimit: queueWaitLimit}
	for _, l := range priorityShares {
		f.levels[l.name] = &priorityLevel{seats: max(1, (total*l.shares+sum-1)/sum), queues: map[string][]chan struct{}{}}
	}
	return f
}

// acquire takes a seat of the level u's request belongs to, queuing for
// it while the level is full. It returns the level and a release func, or
// errLevelFull (queue full or waited too long) or ctx's error. The exempt
// level never waits.
func (f *flowControl) acquire(ctx context.Context, u *authn.User, info *RequestInfo) (level string, release func(), err error) {
	level = priorityLevelFor(u, info)
	l, limited := f.levels[level]
	if !limited {
		return level, func() {}, nil
	}
	ready, ok := l.take(flowOf(level, u, info))
	if !ok {
		return level, nil, errLevelFull
	}
	if ready == nil {
		return level, l.release, nil
	}
	timer := time.NewTimer(f.waitLimit)
	defer timer.Stop()
	select {
	case <-ready:
		return level, l.release, nil
	case <-timer.C:
		err = errLevelFull
	case <-ctx.Done():
		err = ctx.Err()
	}
	if l.cancel(ready) {
		return level, nil, err
	}
	return level, l.release, nil // granted as it gave up: keep the seat
}

// errLevelFull: no seat became free in time (429).
var errLevelFull = errors.New("priority level full")

// flowOf is the flow a request is queued in: the namespace for service
// accounts (the bootstrap schemas' ByNamespace), else the user.
func flowOf(level string, u *authn.User, info *RequestInfo) string {
	if level == PriorityLevelWorkloadLow && info != nil {
		return "ns:" + info.Namespace
	}
	if u == nil {
		return ""
	}
	return "user:" + u.Name
}

// priorityLevel is one level's seats and the queues of its flows.
type priorityLevel struct {
	mu     sync.Mutex
	seats  int
	inUse  int
	queues map[string][]chan struct{} // by flow, only flows that wait
	ring   []string                   // flows that wait, in round-robin order
	next   int                        // the ring index served next
	queued int
}

// take gives a seat at once (nil channel), or queues the request and
// returns the channel closed when a seat is granted to it; false when the
// flow's queue is full.
func (l *priorityLevel) take(flow string) (chan struct{}, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inUse < l.seats && l.queued == 0 {
		l.inUse++
		return nil, true
	}
	q := l.queues[flow]
	if len(q) >= queueLengthLimit {
		return nil, false
	}
	if len(q) == 0 {
		l.ring = append(l.ring, flow)
	}
	ready := make(chan struct{})
	l.queues[flow] = append(q, ready)
	l.queued++
	return ready, true
}

// release frees a seat and grants it to the next waiting flow.
func (l *priorityLevel) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inUse--
	for l.inUse < l.seats && l.queued > 0 {
		l.next %= len(l.ring)
		flow := l.ring[l.next]
		q := l.queues[flow]
		close(q[0])
		l.inUse++
		l.queued--
		if len(q) == 1 {
			l.dropFlow(flow)
		} else {
			l.queues[flow] = q[1:]
			l.next++
		}
	}
}

// cancel takes a request that gave up out of its queue; false when it had
// been granted a seat meanwhile.
func (l *priorityLevel) cancel(ready chan struct{}) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for flow, q := range l.queues {
		if i := slices.Index(q, ready); i >= 0 {
			l.queued--
			if len(q) == 1 {
				l.dropFlow(flow)
			} else {
				l.queues[flow] = slices.Delete(q, i, i+1)
			}
			return true
		}
	}
	return false
}

// dropFlow removes a flow whose queue emptied from the ring, keeping the
// round-robin position on the flow after it.
func (l *priorityLevel) dropFlow(flow string) {
	delete(l.queues, flow)
	i := slices.Index(l.ring, flow)
	l.ring = slices.Delete(l.ring, i, i+1)
	if i < l.next {
		l.next--
	}
}

// busy returns how many seats of level are taken (for tests).
func (f *flowControl) busy(level string) int {
	l := f.levels[level]
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inUse
}

// waiting returns how many requests wait at level (for tests).
func (f *flowControl) waiting(level string) int {
	l := f.levels[level]
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queued
}

// Well-known control-plane identities the bootstrap FlowSchemas name.
const (
	groupServiceAccounts    = "system:serviceaccounts"
	kubeSystemSAUserPrefix  = authz.ServiceAccountUsernamePrefix + "kube-system:"
	coordinationGroup       = "coordination.k8s.io"
	kubeSystemNamespaceName = "kube-system"
)

// priorityLevelFor matches a request to a level by the bootstrap
// FlowSchemas, first match in precedence order: exempt (system:masters),
// system-leader-election, system-node-high, system-nodes,
// kube-controller-manager and kube-scheduler, kube-system-service-accounts,
// service-accounts, global-default, catch-all.
func priorityLevelFor(u *authn.User, info *RequestInfo) string {
	switch {
	case u == nil:
		return PriorityLevelCatchAll
	case u.InGroup(authn.GroupMasters):
		return PriorityLevelExempt
	case isControlPlaneUser(u) && isLeaderElection(info):
		return PriorityLevelLeaderElection
	case u.InGroup(authz.NodesGroup) && info != nil && info.IsResourceRequest &&
		((info.APIGroup == "" && info.Resource == "nodes") || (info.APIGroup == coordinationGroup && info.Resource == "leases")):
		return PriorityLevelNodeHigh
	case u.InGroup(authz.NodesGroup):
		return PriorityLevelSystem
	case isControlPlaneUser(u), strings.HasPrefix(u.Name, kubeSystemSAUserPrefix):
		return PriorityLevelWorkloadHigh
	case u.InGroup(groupServiceAccounts):
		return PriorityLevelWorkloadLow
	case u.InGroup(authn.GroupAuthenticated), u.InGroup(authn.GroupUnauthenticated):
		return PriorityLevelGlobalDefault
	}
	return PriorityLevelCatchAll
}

func isControlPlaneUser(u *authn.User) bool {
	return u.Name == authz.KubeControllerManagerUser || u.Name == authz.KubeSchedulerUser
}

// isLeaderElection: get, create or update of a Lease in kube-system.
func isLeaderElection(info *RequestInfo) bool {
	return info != nil && info.IsResourceRequest && info.APIGroup == coordinationGroup && info.Resource == "leases" &&
		info.Namespace == kubeSystemNamespaceName && slices.Contains([]string{"get", "create", "update"}, info.Verb)
}

package apiserver

import (
	"slices"
	"strings"

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
// request finding its level full is refused at once with 429 and
// Retry-After: 1; kube-apiserver queues it fairly first. The levels and
// schemas are built in, not served as API objects.

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

// flowControl holds one seat pool per limited priority level. Built once
// by New; the pools are channels, safe for concurrent use.
type flowControl struct {
	seats map[string]chan struct{}
}

// newFlowControl splits total seats among the levels by their shares.
func newFlowControl(total int) *flowControl {
	sum := 0
	for _, l := range priorityShares {
		sum += l.shares
	}
	f := &flowControl{seats: make(map[string]chan struct{}, len(priorityShares))}
	for _, l := range priorityShares {
		n := max(1, (total*l.shares+sum-1)/sum)
		f.seats[l.name] = make(chan struct{}, n)
	}
	return f
}

// acquire takes a seat of the level u's request info belongs to. It
// returns the level, a release func and true, or false when the level is
// full. The exempt level always succeeds.
func (f *flowControl) acquire(u *authn.User, info *RequestInfo) (level string, release func(), ok bool) {
	level = priorityLevelFor(u, info)
	seats, limited := f.seats[level]
	if !limited {
		return level, func() {}, true
	}
	select {
	case seats <- struct{}{}:
		return level, func() { <-seats }, true
	default:
		return level, nil, false
	}
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

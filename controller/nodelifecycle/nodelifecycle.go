package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Defaults of Config.
const (
	DefaultGracePeriod       = 40 * time.Second
	DefaultTolerationSeconds = 300 * time.Second
	DefaultMonitorPeriod     = 5 * time.Second
)

// Config configures the node lifecycle controller; the zero value means
// Kubernetes' defaults.
type Config struct {
	// GracePeriod is how old a node's last heartbeat (Lease renewal or
	// Ready condition) may get before the node counts as unreachable;
	// default 40 s.
	GracePeriod time.Duration
	// DefaultTolerationSeconds is how long a pod with no toleration for
	// the not-ready or unreachable taint stays on such a node; default
	// 300 s.
	DefaultTolerationSeconds time.Duration
	// EvictInFullDisruption taints (and so evicts from) unreachable nodes
	// even when no node of their zone (topology.kubernetes.io/zone; nodes
	// without it form one zone) is Ready. By default, as in Kubernetes,
	// such a zone is left alone: when every node drops out at once the
	// likelier fault is the control plane's own network, and evicting
	// everything would only make it worse (a single-node cluster never
	// evicts).
	EvictInFullDisruption bool
	// MonitorPeriod is the longest a node goes unchecked; default 5 s.
	MonitorPeriod time.Duration
	// Workers is how many nodes are handled at once; default 2.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Controller is the node lifecycle controller with its taint manager: a
// *controller.Controller (Run it, or add it to its Manager) reconciling
// nodes. It reads the manager's informers of Nodes, node Leases and Pods
// and writes node status, node taints and pod deletions through the
// manager's client. Safe for concurrent use.
type Controller struct {
	*controller.Controller
	opts   Config
	client *client.Client
	nodes  informer.Lister[*core.Node]
	leases informer.Lister[*coordination.Lease]
	pods   *informer.Indexer[*core.Pod]
	log    *slog.Logger

	mu   sync.Mutex
	seen map[string]heartbeat // by node name
}

var _ controller.Reconciler = (*Controller)(nil)

// podsByNode indexes pods by spec.nodeName.
const podsByNode = "nodelifecycle-spec.nodeName"

// New makes the node lifecycle controller over m's shared informers of
// Nodes, node Leases and Pods, writing through m's client; add it to m
// (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager, or for a negative
// DefaultTolerationSeconds, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.GracePeriod <= 0 {
		cfg.GracePeriod = DefaultGracePeriod
	}
	if cfg.DefaultTolerationSeconds < 0 {
		return nil, fmt.Errorf("%w: negative DefaultTolerationSeconds", ErrInvalidConfig)
	}
	if cfg.DefaultTolerationSeconds == 0 {
		cfg.DefaultTolerationSeconds = DefaultTolerationSeconds
	}
	if cfg.MonitorPeriod <= 0 {
		cfg.MonitorPeriod = DefaultMonitorPeriod
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	nodeInf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, err
	}
	leaseInf, err := controller.InformerFor[coordination.Lease](m, core.NamespaceNodeLease)
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	err = podInf.Indexer().AddIndexers(informer.Indexers[*core.Pod]{podsByNode: informer.IndexPodsByNodeName})
	if err != nil && !errors.Is(err, informer.ErrIndexConflict) { // a second controller on the manager shares the index
		return nil, err
	}
	c := &Controller{opts: cfg, client: m.Client(), nodes: nodeInf.Lister(), leases: leaseInf.Lister(),
		pods: podInf.Indexer(), log: cfg.Logger.With("controller", "nodelifecycle"), seen: map[string]heartbeat{}}
	ctrl, err := controller.New("nodelifecycle", c, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(ctrl, nodeInf)
	controller.Watch(ctrl, leaseInf, func(l *coordination.Lease) []controller.Request { return []controller.Request{{Name: l.Name}} })
	controller.Watch(ctrl, podInf, c.podRequests)
	c.Controller = ctrl
	return c, nil
}

// podRequests maps a pod to its node when the node has a NoExecute
// taint (the pod may have to be evicted); pods of untainted nodes
// concern nobody here.
func (c *Controller) podRequests(p *core.Pod) []controller.Request {
	if p.Spec.NodeName == "" {
		return nil
	}
	node, err := c.nodes.Get("", p.Spec.NodeName)
	if err != nil || !slices.ContainsFunc(node.Spec.Taints, func(t core.Taint) bool { return t.Effect == core.TaintEffectNoExecute }) {
		return nil
	}
	return []controller.Request{{Name: p.Spec.NodeName}}
}

// Reconcile checks the heartbeat of the node named by req, sets its
// Ready condition and taints, evicts pods whose toleration ran out, and
// asks to be called again when the next of these is due.
func (c *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	node, err := c.nodes.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		c.forget(req.Name)
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	now := c.opts.Now()
	last := c.observe(node.Name, c.lastHeartbeat(node), now)
	expires := last.Add(c.opts.GracePeriod)
	next := c.opts.MonitorPeriod
	if now.After(expires) {
		if err := c.markUnreachable(ctx, node, now); err != nil {
			return controller.Result{}, err
		}
	} else {
		next = min(next, expires.Sub(now)+10*time.Millisecond)
		if err := c.syncReadyTaints(ctx, node, now); err != nil {
			return controller.Result{}, err
		}
	}
	if d, err := c.evict(ctx, node, now); err != nil {
		return controller.Result{}, err
	} else if d > 0 {
		next = min(next, d)
	}
	return controller.Result{RequeueAfter: next}, nil
}

// heartbeat is what the controller last saw of a node's heartbeat.
type heartbeat struct {
	reported time.Time // the newest heartbeat time the node reported
	observed time.Time // when this controller first saw that value
}

// observe records the node's reported heartbeat and returns when, by the
// controller's own clock, it last changed. The grace period runs from
// there, as in Kubernetes: a controller that starts (or restarts after
// the cluster was down) gives every node a full grace period instead of
// judging it by timestamps from before, and node clocks need not agree
// with the controller's.
func (c *Controller) observe(name string, reported, now time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	hb, ok := c.seen[name]
	if !ok || reported.After(hb.reported) {
		hb = heartbeat{reported: reported, observed: now}
		c.seen[name] = hb
	}
	return hb.observed
}

func (c *Controller) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, name)
}

// lastHeartbeat is the newest sign of life of node: its Lease's renewal,
// its Ready condition's heartbeat, or else its creation.
func (c *Controller) lastHeartbeat(node *core.Node) time.Time {
	last := node.CreationTimestamp.Time
	if _, cond := core.GetNodeCondition(&node.Status, core.NodeReady); cond != nil && cond.LastHeartbeatTime.After(last) {
		last = cond.LastHeartbeatTime.Time
	}
	if l, err := c.leases.Get(core.NamespaceNodeLease, node.Name); err == nil && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(last) {
		last = l.Spec.RenewTime.Time
	}
	return last
}

// markUnreachable sets the node's Ready (and pressure) conditions to
// Unknown and, unless its whole zone is down, taints it
// unreachable:NoExecute, replacing not-ready; in a zone that is entirely
// down it removes those taints instead, which stops evictions there.
func (c *Controller) markUnreachable(ctx context.Context, node *core.Node, now time.Time) error {
	if !isUnknown(node) {
		next := meta.DeepCopy(node)
		setUnknown(&next.Status, now)
		if _, err := client.For[core.Node](c.client, "").UpdateStatus(ctx, next); err != nil {
			return ignoreNotFound(fmt.Errorf("mark node %s Ready=Unknown: %w", node.Name, err))
		}
		c.log.Warn("node stopped posting status; Ready=Unknown", "node", node.Name, "gracePeriod", c.opts.GracePeriod)
	}
	if !c.opts.EvictInFullDisruption && FullDisruption(c.nodes.List(nil), node) {
		c.log.Warn("no node of the zone is ready; not evicting (full disruption)", "node", node.Name,
			"zone", node.Labels[core.LabelTopologyZone])
		// NoSchedule only: a NoExecute taint from before the whole zone
		// went down would keep evicting.
		return c.setTaints(ctx, node, now, taint(core.TaintNodeUnreachable, core.TaintEffectNoSchedule))
	}
	if err := c.setTaints(ctx, node, now, taint(core.TaintNodeUnreachable, core.TaintEffectNoSchedule),
		taint(core.TaintNodeUnreachable, core.TaintEffectNoExecute)); err != nil {
		return err
	}
	return c.markPodsNotReady(ctx, node.Name, now)
}

// markPodsNotReady sets Ready=False on the pods of an unreachable node
// (nobody else will: its kubelet is silent), so that Services stop
// sending them traffic before they are evicted.
func (c *Controller) markPodsNotReady(ctx context.Context, nodeName string, now time.Time) error {
	pods, err := c.pods.ByIndex(podsByNode, nodeName)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pods {
		if p.DeletionTimestamp != nil || core.IsPodTerminal(p) || !core.IsPodReady(p) {
			continue
		}
		next := meta.DeepCopy(p)
		core.UpdatePodCondition(&next.Status, core.PodCondition{Type: core.PodReady, Status: meta.ConditionFalse,
			Reason: "NodeNotReady", LastTransitionTime: meta.NewTime(now)})
		_, err := client.For[core.Pod](c.client, p.Namespace).UpdateStatus(ctx, next)
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("mark pod %s/%s not ready: %w", p.Namespace, p.Name, err))
		}
	}
	return errors.Join(errs...)
}

// syncReadyTaints keeps the taints that match a node with a fresh
// heartbeat: not-ready (NoSchedule and NoExecute) when Ready is False,
// none when it is True.
func (c *Controller) syncReadyTaints(ctx context.Context, node *core.Node, now time.Time) error {
	_, cond := core.GetNodeCondition(&node.Status, core.NodeReady)
	switch {
	case cond == nil || cond.Status == meta.ConditionUnknown:
		return nil // fresh heartbeat, no verdict yet: leave the taints as they are
	case cond.Status == meta.ConditionFalse:
		return c.setTaints(ctx, node, now, taint(core.TaintNodeNotReady, core.TaintEffectNoSchedule),
			taint(core.TaintNodeNotReady, core.TaintEffectNoExecute))
	default:
		return c.setTaints(ctx, node, now)
	}
}

// setTaints makes the node's condition taints (unreachable and
// not-ready, NoSchedule and NoExecute) exactly want, retrying on
// conflicts; other taints are left alone. The cached node is checked
// first: when it needs no change (the usual case, on every heartbeat)
// nothing is sent.
func (c *Controller) setTaints(ctx context.Context, cached *core.Node, now time.Time, want ...core.Taint) error {
	if _, changed := withTaints(cached.Spec.Taints, now, want); !changed {
		return nil
	}
	name := cached.Name
	res := client.For[core.Node](c.client, "")
	for attempt := 0; ; attempt++ {
		node, err := res.Get(ctx, name)
		if err != nil {
			return ignoreNotFound(fmt.Errorf("get node %s: %w", name, err))
		}
		taints, changed := withTaints(node.Spec.Taints, now, want)
		if !changed {
			return nil
		}
		node.Spec.Taints = taints
		_, err = res.Update(ctx, node)
		if err == nil {
			c.log.Info("node taints changed", "node", name, "conditionTaints", want)
			return nil
		}
		if !apierrors.IsConflict(err) || attempt == 4 {
			return ignoreNotFound(fmt.Errorf("taint node %s: %w", name, err))
		}
	}
}

func taint(key string, effect core.TaintEffect) core.Taint {
	return core.Taint{Key: key, Effect: effect}
}

// conditionTaint reports whether t is one of the taints this controller
// owns: unreachable or not-ready, NoSchedule or NoExecute.
func conditionTaint(t *core.Taint) bool {
	return (t.Key == core.TaintNodeUnreachable || t.Key == core.TaintNodeNotReady) &&
		(t.Effect == core.TaintEffectNoSchedule || t.Effect == core.TaintEffectNoExecute)
}

// withTaints returns taints with exactly want as condition taints (one
// already there keeps its timeAdded; a new one is added at now) and every
// other taint unchanged, and whether that differs from taints. It is a
// pure function.
func withTaints(taints []core.Taint, now time.Time, want []core.Taint) ([]core.Taint, bool) {
	out := slices.DeleteFunc(slices.Clone(taints), func(t core.Taint) bool {
		return conditionTaint(&t) && !slices.ContainsFunc(want, func(w core.Taint) bool { return w.MatchTaint(&t) })
	})
	changed := len(out) != len(taints)
	for _, w := range want {
		if !slices.ContainsFunc(out, func(t core.Taint) bool { return t.MatchTaint(&w) }) {
			ts := meta.NewTime(now)
			w.TimeAdded = &ts
			out = append(out, w)
			changed = true
		}
	}
	return out, changed
}

// evict deletes the node's pods whose toleration of its NoExecute taints
// has run out, and returns how long until the next one does (0: none).
func (c *Controller) evict(ctx context.Context, node *core.Node, now time.Time) (time.Duration, error) {
	pods, err := c.pods.ByIndex(podsByNode, node.Name)
	if err != nil {
		return 0, err
	}
	var next time.Duration
	var errs []error
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		at, ok := EvictionTime(p, node.Spec.Taints, c.opts.DefaultTolerationSeconds, now)
		if !ok {
			continue
		}
		if wait := at.Sub(now); wait > 0 {
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		uid := p.UID
		err := client.For[core.Pod](c.client, p.Namespace).Delete(ctx, p.Name, &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("evict pod %s/%s: %w", p.Namespace, p.Name, err))
			continue
		}
		c.log.Info("evicted pod from tainted node", "pod", p.Namespace+"/"+p.Name, "node", node.Name)
	}
	return next, errors.Join(errs...)
}

var unknownConditions = []core.NodeConditionType{core.NodeReady, core.NodeMemoryPressure, core.NodeDiskPressure, core.NodePIDPressure}

func isUnknown(node *core.Node) bool {
	_, cond := core.GetNodeCondition(&node.Status, core.NodeReady)
	return cond != nil && cond.Status == meta.ConditionUnknown && cond.Reason == "NodeStatusUnknown"
}

// setUnknown marks Ready and the pressure conditions Unknown, adding
// Ready when the node never reported it.
func setUnknown(st *core.NodeStatus, now time.Time) {
	t := meta.NewTime(now)
	if _, cond := core.GetNodeCondition(st, core.NodeReady); cond == nil {
		st.Conditions = append(st.Conditions, core.NodeCondition{Type: core.NodeReady})
	}
	for i := range st.Conditions {
		cond := &st.Conditions[i]
		if !slices.Contains(unknownConditions, cond.Type) {
			continue
		}
		if cond.Status != meta.ConditionUnknown {
			cond.LastTransitionTime = t
		}
		cond.Status, cond.Reason, cond.Message = meta.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// FullDisruption reports whether no node of node's zone
// (topology.kubernetes.io/zone) other than node itself has Ready=True:
// the zone is entirely down. It is a pure function of its arguments.
func FullDisruption(nodes []*core.Node, node *core.Node) bool {
	zone := node.Labels[core.LabelTopologyZone]
	for _, n := range nodes {
		if n.Name == node.Name || n.Labels[core.LabelTopologyZone] != zone {
			continue
		}
		if _, cond := core.GetNodeCondition(&n.Status, core.NodeReady); cond != nil && cond.Status == meta.ConditionTrue {
			return false
		}
	}
	return true
}

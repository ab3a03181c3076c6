package daemonset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Config configures the DaemonSet controller; the zero value is usable.
type Config struct {
	// Workers is how many DaemonSets are reconciled at once; default 1.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller is the DaemonSet controller: a *controller.Controller (Run
// it, or add it to its Manager) whose reconciler keeps one pod of each
// DaemonSet on every eligible node. It reads the manager's shared
// informers of DaemonSets, Pods, Nodes and ControllerRevisions and writes
// through the manager's client. Safe for concurrent use.
type Controller struct {
	*controller.Controller
	client    *client.Client
	sets      informer.Lister[*apps.DaemonSet]
	pods      informer.Lister[*core.Pod]
	podIndex  *informer.Indexer[*core.Pod] // by controller (ClaimCandidates)
	nodes     informer.Lister[*core.Node]
	revisions informer.Lister[*apps.ControllerRevision]
	exp       *controller.Expectations
	backoff   *failedBackoff
	placement *nodePlacement
	log       *slog.Logger
	now       func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the DaemonSet controller over m's shared informers of
// DaemonSets, Pods, Nodes and ControllerRevisions, writing through m's
// client; add it to m (m.Add) to run it while m leads, or Run it. It fails
// with ErrInvalidConfig without a manager, and when an informer cannot be
// made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	dsInf, err := controller.InformerFor[apps.DaemonSet](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	nodeInf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, err
	}
	revInf, err := controller.InformerFor[apps.ControllerRevision](m, "")
	if err != nil {
		return nil, err
	}
	if err := controller.IndexByController(podInf.Indexer()); err != nil {
		return nil, err
	}
	c := &Controller{client: m.Client(), sets: dsInf.Lister(), pods: podInf.Lister(), podIndex: podInf.Indexer(), nodes: nodeInf.Lister(),
		revisions: revInf.Lister(), exp: controller.NewExpectations(nil, 0), backoff: newFailedBackoff(),
		placement: &nodePlacement{seen: map[string]placementKey{}},
		log:       cfg.Logger.With("controller", "daemonset"), now: time.Now}
	ctrl, err := controller.New("daemonset", c, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	owner := controller.OwnerKind{Group: apps.GroupName, Kind: "DaemonSet"}
	controller.WatchObjects(ctrl, dsInf)
	controller.WatchOwned(ctrl, podInf, owner)
	controller.Watch(ctrl, podInf, controller.EnqueueSelectingOwners[*core.Pod](dsInf.Lister(),
		func(ds *apps.DaemonSet) *meta.LabelSelector { return ds.Spec.Selector }, nil))
	podInf.AddEventHandler(c.expectationHandler(controller.EnqueueOwner[*core.Pod](owner)))
	controller.WatchOwned(ctrl, revInf, owner)
	controller.Watch(ctrl, nodeInf, c.nodeRequests)
	c.Controller = ctrl
	return c, nil
}

// expectationHandler lowers the owner's expectations as the cache
// shows what was asked for: a pod added, a pod marked for deletion or
// gone.
func (c *Controller) expectationHandler(owner controller.Mapper[*core.Pod]) informer.Handler[*core.Pod] {
	return informer.HandlerFuncs[*core.Pod]{
		AddFunc: func(p *core.Pod, _ bool) {
			for _, r := range owner(p) {
				c.exp.CreationObserved(r)
			}
		},
		UpdateFunc: func(old, p *core.Pod) {
			if old.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
				for _, r := range owner(p) {
					c.exp.DeletionObserved(r)
				}
			}
		},
		DeleteFunc: func(obj any) {
			if p, ok := informer.ObjectOf[*core.Pod](obj); ok && p.DeletionTimestamp == nil {
				for _, r := range owner(p) {
					c.exp.DeletionObserved(r)
				}
			}
		},
	}
}

func (c *Controller) allSets() []controller.Request {
	sets := c.sets.List(nil)
	out := make([]controller.Request, len(sets))
	for i, ds := range sets {
		out[i] = controller.Request{Namespace: ds.Namespace, Name: ds.Name}
	}
	return out
}

// Reconcile makes the pods of the DaemonSet named by req match its
// nodes and template, then writes its status.
func (c *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	ds, err := c.sets.Get(req.Namespace, req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		c.exp.Forget(req)
		return controller.Result{}, nil
	}
	if err != nil || ds.DeletionTimestamp != nil {
		return controller.Result{}, err
	}
	sel, err := labels.SelectorFromLabelSelector(ds.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(ds.Spec.Template.Labels)) {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("%w: %s/%s: %v", ErrInvalidSelector, ds.Namespace, ds.Name, err))
	}
	hash, err := c.syncRevision(ctx, ds)
	if err != nil {
		return controller.Result{}, err
	}
	claimed, err := c.claimPods(ctx, ds, sel)
	if err != nil {
		return controller.Result{}, err
	}
	byNode := groupByNode(claimed)
	var retry time.Duration
	if c.exp.Satisfied(req) {
		if retry, err = c.manage(ctx, req, ds, byNode, hash); err != nil {
			return controller.Result{}, err
		}
		byNode = c.podsByNode(ds, sel)
	}
	return controller.Result{RequeueAfter: retry}, c.writeStatus(ctx, ds, byNode, hash)
}

// podsByNode groups the DaemonSet's pods in the cache by the node they
// are for.
func (c *Controller) podsByNode(ds *apps.DaemonSet, sel labels.Selector) map[string][]*core.Pod {
	var pods []*core.Pod
	for _, p := range c.pods.Namespace(ds.Namespace).List(sel) {
		if ref := meta.ControllerOf(&p.ObjectMeta); ref != nil && ref.UID == ds.UID {
			pods = append(pods, p)
		}
	}
	return groupByNode(pods)
}

// groupByNode groups pods by the node they are for.
func groupByNode(pods []*core.Pod) map[string][]*core.Pod {
	out := map[string][]*core.Pod{}
	for _, p := range pods {
		n := TargetNode(p)
		out[n] = append(out[n], p)
	}
	return out
}

// manage decides which pods to create and delete, then does it.
func (c *Controller) manage(ctx context.Context, req controller.Request, ds *apps.DaemonSet, byNode map[string][]*core.Pod, hash string) (retry time.Duration, err error) {
	var create []string
	var del []*core.Pod
	nodes := map[string]bool{}
	var eligible []string
	for _, node := range c.nodes.List(nil) {
		nodes[node.Name] = true
		pods := live(byNode[node.Name])
		should, keep := Placement(ds, node)
		if should {
			eligible = append(eligible, node.Name)
		}
		switch {
		case !should && keep:
			// A NoSchedule taint: no new pod, but the running one stays.
		case should && len(pods) == 0:
			create = append(create, node.Name)
		case should:
			var running []*core.Pod
			for _, p := range pods {
				if !core.IsPodTerminal(p) {
					running = append(running, p)
					continue
				}
				// A failed daemon is replaced on the next pass, at most as
				// often as its node's backoff allows.
				if wait := c.backoff.next(ds.UID, node.Name, c.now()); wait > 0 {
					retry = minPositive(retry, wait)
					continue
				}
				del = append(del, p)
			}
			slices.SortFunc(running, olderFirst)
			switch {
			case len(running) <= 1:
			case surging(ds):
				del = append(del, surgeExtras(running, hash, c.now(), ds.Spec.MinReadySeconds)...)
			default:
				del = append(del, running[1:]...)
			}
		default:
			del = append(del, pods...)
		}
	}
	for node, pods := range byNode {
		if !nodes[node] {
			del = append(del, live(pods)...) // the node is gone
		}
	}
	if len(create) == 0 && len(del) == 0 && ds.Spec.UpdateStrategy.Type != apps.OnDeleteDaemonSetStrategyType {
		if surging(ds) {
			create = surgeCreates(ds, byNode, eligible, hash, c.now())
		} else {
			del = rollingUpdate(ds, byNode, eligible, hash)
		}
	}
	return retry, c.apply(ctx, req, ds, create, del, hash)
}

// olderFirst orders a node's duplicate pods so that the one kept comes
// first: a ready pod before one that is not, then the oldest, then by
// name (creation times have one-second resolution), the same on every
// pass.
func olderFirst(a, b *core.Pod) int {
	if ra, rb := core.IsPodReady(a), core.IsPodReady(b); ra != rb {
		if ra {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func minPositive(a, b time.Duration) time.Duration {
	if a <= 0 || b < a {
		return b
	}
	return a
}

// live drops pods that are already being deleted.
func live(pods []*core.Pod) []*core.Pod {
	out := make([]*core.Pod, 0, len(pods))
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// apply creates a pod for every node in create and deletes del, with
// expectations raised first so the next pass waits for the cache.
func (c *Controller) apply(ctx context.Context, req controller.Request, ds *apps.DaemonSet, create []string, del []*core.Pod, hash string) error {
	c.exp.ExpectCreations(req, len(create))
	c.exp.ExpectDeletions(req, len(del))
	res := client.For[core.Pod](c.client, ds.Namespace)
	var errs []error
	for _, node := range create {
		if _, err := res.Create(ctx, newPod(ds, node, hash)); err != nil {
			c.exp.CreationObserved(req)
			errs = append(errs, fmt.Errorf("create pod of %s/%s for node %s: %w", ds.Namespace, ds.Name, node, err))
			continue
		}
		c.log.Info("created daemon pod", "daemonset", req.String(), "node", node)
	}
	for _, p := range del {
		uid := p.UID
		err := res.Delete(ctx, p.Name, &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}})
		if err != nil {
			c.exp.DeletionObserved(req)
			if !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				errs = append(errs, fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err))
			}
			continue
		}
		c.log.Info("deleted daemon pod", "daemonset", req.String(), "pod", p.Name, "node", TargetNode(p))
	}
	return errors.Join(errs...)
}

// templateHash names the revision of a DaemonSet's template.
func templateHash(t *core.PodTemplateSpec, collisionCount int32) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b, _ := json.Marshal(t)
	h := fnv.New32a()
	h.Write(b)
	if collisionCount != 0 {
		fmt.Fprintf(h, "/%d", collisionCount)
	}
	v := h.Sum32()
	out := make([]byte, 0, 8)
	for v > 0 || len(out) == 0 {
		out = append(out, alphabet[v%uint32(len(alphabet))])
		v /= uint32(len(alphabet))
	}
	return string(out)
}

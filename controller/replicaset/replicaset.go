package replicaset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// DefaultBurst caps the creations or deletions of one reconcile, as
// kube-controller-manager's burstReplicas does.
const DefaultBurst = 500

// Config configures the controller. The zero value is usable.
type Config struct {
	// Burst caps the pods created or deleted by one reconcile; default
	// DefaultBurst.
	Burst int
	// Workers reconcile different ReplicaSets at once; default 5.
	Workers int
	// Recorder records the SuccessfulCreate, FailedCreate,
	// SuccessfulDelete and FailedDelete Events; default the manager's
	// (Manager.Recorder).
	Recorder record.Recorder
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller reconciles ReplicaSets. It is a *controller.Controller (add it
// to the Manager it was made on, or Run it) reconciling with its own
// Reconcile. Make one with New; it is safe for concurrent use by the
// controller's workers.
type Controller struct {
	*controller.Controller
	client *client.Client
	kind   kindAdapter
	// podIndex is the pod cache, indexed by controller (ClaimCandidates).
	podIndex *informer.Indexer[*core.Pod]
	exp      *controller.Expectations
	burst    int
	rec      record.Recorder
	log      *slog.Logger
	now      func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the ReplicaSet controller over m's shared informers of
// ReplicaSets and Pods, writing through m's client; add it to m (m.Add) to
// run it while m leads, or Run it. It fails with ErrInvalidConfig without a
// manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	rsInf, err := controller.InformerFor[apps.ReplicaSet](m, "")
	if err != nil {
		return nil, err
	}
	return newController(m, cfg, "replicaset", replicaSetKind(m.Client(), rsInf.Lister()), func(c *controller.Controller) {
		controller.WatchObjects(c, rsInf)
	})
}

// NewForReplicationControllers makes the replication controller: this
// controller's logic over m's shared informer of core/v1
// ReplicationControllers, each seen as the ReplicaSet it behaves as
// (ReplicaSetView); its pods carry a v1 ReplicationController owner
// reference and its Events name the ReplicationController. Errors are
// New's.
func NewForReplicationControllers(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	rcInf, err := controller.InformerFor[core.ReplicationController](m, "")
	if err != nil {
		return nil, err
	}
	return newController(m, cfg, "replicationcontroller", replicationControllerKind(m.Client(), rcInf.Lister()),
		func(c *controller.Controller) { controller.WatchObjects(c, rcInf) })
}

// newController makes the controller for one kind; watch sets up the
// watch of the kind's objects.
func newController(m *controller.Manager, cfg Config, name string, kind kindAdapter, watch func(*controller.Controller)) (*Controller, error) {
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	if err := controller.IndexByController(podInf.Indexer()); err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), kind: kind, podIndex: podInf.Indexer(),
		exp: controller.NewExpectations(nil, 0), burst: cfg.Burst, log: cfg.Logger, now: time.Now}
	if r.rec = cfg.Recorder; r.rec == nil {
		component := Component
		if kind.name == "ReplicationController" {
			component = ComponentReplicationController
		}
		if r.rec, err = m.Recorder(component); err != nil {
			return nil, err
		}
	}
	c, err := controller.New(name, r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	watch(c)
	controller.Watch(c, controller.ObserveExpectations(podInf, r.exp, r.ownerKey), r.podRequests)
	r.Controller = c
	return r, nil
}

// Expectations returns the controller's expectations (for tests and
// metrics).
func (r *Controller) Expectations() *controller.Expectations { return r.exp }

// podRequests maps a pod to its controlling owner of the kind, or an
// orphan to every owner of its namespace that selects it (to adopt it).
func (r *Controller) podRequests(pod *core.Pod) []controller.Request {
	if ref := meta.ControllerOf(&pod.ObjectMeta); ref != nil {
		if !r.kind.owns(ref) {
			return nil
		}
		return []controller.Request{{Namespace: pod.Namespace, Name: ref.Name}}
	}
	return r.kind.orphanOwners(pod)
}

// Reconcile brings one ReplicaSet's pods and status to its spec.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	obj, rs, err := r.kind.get(req.Namespace, req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		r.exp.Forget(req)
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	sel, err := labels.SelectorFromLabelSelector(rs.Spec.Selector)
	if err != nil || sel.Empty() {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("%s %s: invalid selector: %v", r.kind.name, req, err))
	}
	pods, err := r.claimPods(ctx, obj, sel)
	if err != nil {
		return controller.Result{}, err
	}
	var manageErr error
	if r.exp.Satisfied(req) && rs.DeletionTimestamp == nil {
		manageErr = r.manage(ctx, req, obj, rs, pods)
	}
	st, wait := ComputeStatus(rs, pods, manageErr, r.now())
	if err := r.updateStatus(ctx, obj, rs, st); err != nil {
		return controller.Result{}, err
	}
	if manageErr != nil {
		return controller.Result{}, manageErr
	}
	if wait > 0 {
		return controller.Result{RequeueAfter: wait + 10*time.Millisecond}, nil
	}
	return controller.Result{}, nil
}

// updateStatus writes st as obj's status unless its view rs already has
// it; a conflict retries the reconcile.
func (r *Controller) updateStatus(ctx context.Context, obj meta.Object, rs *apps.ReplicaSet, st apps.ReplicaSetStatus) error {
	if statusEqual(&rs.Status, &st) {
		return nil
	}
	return r.kind.writeStatus(ctx, obj, st)
}

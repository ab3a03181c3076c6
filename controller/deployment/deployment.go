package deployment

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

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers reconcile different Deployments at once; default 5.
	Workers int
	// Recorder records the ScalingReplicaSet Events; default the manager's
	// (Manager.Recorder).
	Recorder record.Recorder
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller reconciles Deployments. It is a *controller.Controller (add it
// to the Manager it was made on, or Run it) reconciling with its own
// Reconcile. Make one with New; it is safe for concurrent use by the
// controller's workers (never two for one Deployment).
type Controller struct {
	*controller.Controller
	client *client.Client
	ds     informer.Lister[*apps.Deployment]
	rss    informer.Lister[*apps.ReplicaSet]
	pods   informer.Lister[*core.Pod]
	rec    record.Recorder
	log    *slog.Logger
	now    func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the Deployment controller over m's shared informers of
// Deployments, ReplicaSets and Pods, writing through m's client; add it to
// m (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	dInf, err := controller.InformerFor[apps.Deployment](m, "")
	if err != nil {
		return nil, err
	}
	rsInf, err := controller.InformerFor[apps.ReplicaSet](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), ds: dInf.Lister(), rss: rsInf.Lister(), pods: podInf.Lister(),
		log: cfg.Logger, now: time.Now}
	if r.rec = cfg.Recorder; r.rec == nil {
		if r.rec, err = m.Recorder(Component); err != nil {
			return nil, err
		}
	}
	c, err := controller.New("deployment", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, dInf)
	controller.Watch(c, rsInf, r.rsRequests)
	controller.Watch(c, podInf, r.podRequests)
	r.Controller = c
	return r, nil
}

// rsRequests maps a ReplicaSet to its controlling Deployment, or an
// orphan to the Deployments whose selector matches it.
func (r *Controller) rsRequests(rs *apps.ReplicaSet) []controller.Request {
	if ref := meta.ControllerOf(&rs.ObjectMeta); ref != nil {
		if ref.Kind != "Deployment" || meta.ParseGroupVersion(ref.APIVersion).Group != apps.GroupName {
			return nil
		}
		return []controller.Request{{Namespace: rs.Namespace, Name: ref.Name}}
	}
	return controller.EnqueueSelectingOwners[*apps.ReplicaSet](r.ds, func(d *apps.Deployment) *meta.LabelSelector { return d.Spec.Selector }, nil)(rs)
}

// podRequests maps a pod's deletion to the Deployment of its
// ReplicaSet: Recreate waits for old pods to be gone. Only pods whose
// owner ReplicaSet is known map.
func (r *Controller) podRequests(pod *core.Pod) []controller.Request {
	if pod.DeletionTimestamp == nil && !core.IsPodTerminal(pod) {
		return nil
	}
	ref := meta.ControllerOf(&pod.ObjectMeta)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs, err := r.rss.Namespace(pod.Namespace).Get(ref.Name)
	if err != nil {
		return nil
	}
	return r.rsRequests(rs)
}

// Reconcile brings one Deployment one step closer to its spec.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	d, err := r.ds.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	d = meta.DeepCopy(d)
	sel, err := labels.SelectorFromLabelSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("deployment %s: invalid selector: %v", req, err))
	}
	if d.DeletionTimestamp != nil {
		return controller.Result{}, r.syncStatusOnly(ctx, d)
	}
	rsList, err := r.claimReplicaSets(ctx, d, sel)
	if err != nil {
		return controller.Result{}, err
	}
	if c := GetCondition(&d.Status, apps.DeploymentProgressing); !d.Spec.Paused && c != nil && c.Reason == apps.PausedDeployReason {
		SetCondition(&d.Status, NewCondition(apps.DeploymentProgressing, meta.ConditionUnknown, apps.ResumedDeployReason,
			"Deployment is resumed", r.now()))
	}
	if d.Spec.Paused {
		return controller.Result{}, r.sync(ctx, d, rsList)
	}
	if r.isScalingEvent(d, rsList) {
		return controller.Result{}, r.sync(ctx, d, rsList)
	}
	if !IsRollingUpdate(d) {
		return r.rolloutRecreate(ctx, d, rsList)
	}
	return r.rolloutRolling(ctx, d, rsList)
}

// isScalingEvent reports whether d's replicas changed since its active
// ReplicaSets were last scaled (their desired-replicas annotation).
func (r *Controller) isScalingEvent(d *apps.Deployment, rsList []*apps.ReplicaSet) bool {
	want := fmt.Sprint(replicasOf(d.Spec.Replicas))
	for _, rs := range rsList {
		if rsReplicas(rs) == 0 {
			continue
		}
		if v, ok := rs.Annotations[apps.DesiredReplicasAnnotation]; ok && v != want {
			return true
		}
	}
	return false
}

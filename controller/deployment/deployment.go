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

// Options configure the controller. The zero value is usable.
type Options struct {
	// Workers reconcile different Deployments at once; default 5.
	Workers int
	// Recorder records the ScalingReplicaSet Events; nil means a
	// record.Writer of the controller's own, added to the manager.
	Recorder record.Recorder
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Reconciler reconciles Deployments. Make one with New; it is safe for
// concurrent use by the controller's workers (never two for one
// Deployment).
type Reconciler struct {
	client *client.Client
	ds     informer.Lister[*apps.Deployment]
	rss    informer.Lister[*apps.ReplicaSet]
	pods   informer.Lister[*core.Pod]
	rec    record.Recorder
	log    *slog.Logger
	now    func() time.Time
}

var _ controller.Reconciler = (*Reconciler)(nil)

// New makes the Deployment controller over the manager's shared
// informers of Deployments, ReplicaSets and Pods. Add the returned
// controller to the manager (m.Add) to run it.
func New(m *controller.Manager, opts Options) (*controller.Controller, *Reconciler, error) {
	if m == nil {
		return nil, nil, fmt.Errorf("%w: no manager", ErrInvalidOptions)
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	dInf, err := controller.InformerFor[apps.Deployment](m, "")
	if err != nil {
		return nil, nil, err
	}
	rsInf, err := controller.InformerFor[apps.ReplicaSet](m, "")
	if err != nil {
		return nil, nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, nil, err
	}
	r := &Reconciler{client: m.Client(), ds: dInf.Lister(), rss: rsInf.Lister(), pods: podInf.Lister(),
		log: opts.Logger, now: time.Now}
	if r.rec, err = newRecorder(m, opts); err != nil {
		return nil, nil, err
	}
	c, err := controller.New("deployment", r, controller.Config{Workers: opts.Workers, Logger: opts.Logger})
	if err != nil {
		return nil, nil, err
	}
	controller.WatchObjects(c, dInf)
	controller.Watch(c, rsInf, r.rsRequests)
	controller.Watch(c, podInf, r.podRequests)
	return c, r, nil
}

// rsRequests maps a ReplicaSet to its controlling Deployment, or an
// orphan to the Deployments whose selector matches it.
func (r *Reconciler) rsRequests(rs *apps.ReplicaSet) []controller.Request {
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
func (r *Reconciler) podRequests(pod *core.Pod) []controller.Request {
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
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
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
func (r *Reconciler) isScalingEvent(d *apps.Deployment, rsList []*apps.ReplicaSet) bool {
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

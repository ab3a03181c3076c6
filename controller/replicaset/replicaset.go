package replicaset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
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

// Options configure the controller. The zero value is usable.
type Options struct {
	// Burst caps the pods created or deleted by one reconcile; default
	// DefaultBurst.
	Burst int
	// Workers reconcile different ReplicaSets at once; default 5.
	Workers int
	// Recorder records the SuccessfulCreate, FailedCreate,
	// SuccessfulDelete and FailedDelete Events; nil means a record.Writer
	// of the controller's own, added to the manager.
	Recorder record.Recorder
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Reconciler reconciles ReplicaSets. Make one with New; it is safe for
// concurrent use by the controller's workers.
type Reconciler struct {
	client *client.Client
	rss    informer.Lister[*apps.ReplicaSet]
	pods   informer.Lister[*core.Pod]
	exp    *controller.Expectations
	burst  int
	rec    record.Recorder
	log    *slog.Logger
	now    func() time.Time
}

var _ controller.Reconciler = (*Reconciler)(nil)

// New makes the ReplicaSet controller over the manager's shared
// informers of ReplicaSets and Pods. Add the returned controller to the
// manager (m.Add) to run it.
func New(m *controller.Manager, opts Options) (*controller.Controller, *Reconciler, error) {
	if m == nil {
		return nil, nil, fmt.Errorf("%w: no manager", ErrInvalidOptions)
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultBurst
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	rsInf, err := controller.InformerFor[apps.ReplicaSet](m, "")
	if err != nil {
		return nil, nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, nil, err
	}
	r := &Reconciler{client: m.Client(), rss: rsInf.Lister(), pods: podInf.Lister(),
		exp: controller.NewExpectations(nil, 0), burst: opts.Burst, log: opts.Logger, now: time.Now}
	if r.rec, err = newRecorder(m, opts); err != nil {
		return nil, nil, err
	}
	c, err := controller.New("replicaset", r, controller.Config{Workers: opts.Workers, Logger: opts.Logger})
	if err != nil {
		return nil, nil, err
	}
	controller.WatchObjects(c, rsInf)
	controller.Watch(c, controller.ObserveExpectations(podInf, r.exp, ownerKey), r.podRequests)
	return c, r, nil
}

// Expectations returns the controller's expectations (for tests and
// metrics).
func (r *Reconciler) Expectations() *controller.Expectations { return r.exp }

// podRequests maps a pod to its controlling ReplicaSet, or an orphan to
// every ReplicaSet of its namespace that selects it (to adopt it).
func (r *Reconciler) podRequests(pod *core.Pod) []controller.Request {
	if ref := controllerRef(pod); ref != nil {
		if ref.Kind != "ReplicaSet" {
			return nil
		}
		return []controller.Request{{Namespace: pod.Namespace, Name: ref.Name}}
	}
	return controller.EnqueueSelectingOwners[*core.Pod](r.rss, func(rs *apps.ReplicaSet) *meta.LabelSelector { return rs.Spec.Selector }, nil)(pod)
}

// Reconcile brings one ReplicaSet's pods and status to its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	rs, err := r.rss.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		r.exp.Forget(req)
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	sel, err := labels.SelectorFromLabelSelector(rs.Spec.Selector)
	if err != nil || sel.Empty() {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("replicaset %s: invalid selector: %v", req, err))
	}
	pods, err := r.claimPods(ctx, rs, sel)
	if err != nil {
		return controller.Result{}, err
	}
	var manageErr error
	if r.exp.Satisfied(req) && rs.DeletionTimestamp == nil {
		manageErr = r.manage(ctx, req, rs, pods)
	}
	st, wait := ComputeStatus(rs, pods, manageErr, r.now())
	if err := r.updateStatus(ctx, rs, st); err != nil {
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

// updateStatus writes st unless rs already has it; a conflict retries the
// reconcile.
func (r *Reconciler) updateStatus(ctx context.Context, rs *apps.ReplicaSet, st apps.ReplicaSetStatus) error {
	if statusEqual(&rs.Status, &st) {
		return nil
	}
	upd := *rs
	upd.Status = st
	_, err := client.For[apps.ReplicaSet](r.client, rs.Namespace).UpdateStatus(ctx, &upd)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of replicaset %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	return nil
}

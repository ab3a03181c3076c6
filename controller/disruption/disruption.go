package disruption

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
	"github.com/orkit/orkit/api/validation"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Component is the source of the controller's Events, as
// kube-controller-manager names it.
const Component = "controllermanager"

// The reasons of the controller's Events, as Kubernetes spells them.
const (
	ReasonNoPods                  = "NoPods"
	ReasonCalculateExpectedFailed = "CalculateExpectedPodCountFailed"
	ReasonUnmanagedPods           = "UnmanagedPods"
)

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers reconcile different budgets at once; default 2.
	Workers int
	// Recorder records the NoPods, CalculateExpectedPodCountFailed and
	// UnmanagedPods Events; default the manager's (Manager.Recorder).
	Recorder record.Recorder
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Controller computes and writes the status of PodDisruptionBudgets. It is
// a *controller.Controller (add it to the Manager it was made on, or Run
// it) reconciling with its own Reconcile. Make one with New; it is safe for
// concurrent use by the controller's workers and holds no state beyond its
// listers.
type Controller struct {
	*controller.Controller
	client *client.Client
	pdbs   informer.Lister[*policy.PodDisruptionBudget]
	pods   informer.Lister[*core.Pod]
	rss    informer.Lister[*apps.ReplicaSet]
	deps   informer.Lister[*apps.Deployment]
	sets   informer.Lister[*apps.StatefulSet]
	rec    record.Recorder
	log    *slog.Logger
	now    func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the disruption controller over m's shared informers of
// PodDisruptionBudgets, Pods, ReplicaSets, Deployments and StatefulSets,
// writing through m's client; add it to m (m.Add) to run it while m leads,
// or Run it. It fails with ErrInvalidConfig without a manager, and when an
// informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
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
	pdbInf, err := controller.InformerFor[policy.PodDisruptionBudget](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	rsInf, err := controller.InformerFor[apps.ReplicaSet](m, "")
	if err != nil {
		return nil, err
	}
	depInf, err := controller.InformerFor[apps.Deployment](m, "")
	if err != nil {
		return nil, err
	}
	stsInf, err := controller.InformerFor[apps.StatefulSet](m, "")
	if err != nil {
		return nil, err
	}
	if cfg.Recorder == nil {
		if cfg.Recorder, err = m.Recorder(Component); err != nil {
			return nil, err
		}
	}
	r := &Controller{client: m.Client(), pdbs: pdbInf.Lister(), pods: podInf.Lister(), rss: rsInf.Lister(),
		deps: depInf.Lister(), sets: stsInf.Lister(), rec: cfg.Recorder, log: cfg.Logger, now: cfg.Now}
	c, err := controller.New("disruption", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, pdbInf)
	controller.Watch(c, podInf, func(p *core.Pod) []controller.Request { return r.budgetsSelecting(p.Namespace, p.Labels) })
	controller.Watch(c, rsInf, func(rs *apps.ReplicaSet) []controller.Request {
		return r.budgetsSelecting(rs.Namespace, rs.Spec.Template.Labels)
	})
	controller.Watch(c, depInf, func(d *apps.Deployment) []controller.Request {
		return r.budgetsSelecting(d.Namespace, d.Spec.Template.Labels)
	})
	controller.Watch(c, stsInf, func(s *apps.StatefulSet) []controller.Request {
		return r.budgetsSelecting(s.Namespace, s.Spec.Template.Labels)
	})
	r.Controller = c
	return r, nil
}

// budgetsSelecting maps labels in ns to the budgets whose selector
// matches them (a change of the pods, or of their controllers' scale,
// concerns those budgets).
func (r *Controller) budgetsSelecting(ns string, l map[string]string) []controller.Request {
	var out []controller.Request
	for _, pdb := range r.pdbs.Namespace(ns).List(nil) {
		if sel, err := labels.SelectorFromLabelSelector(pdb.Spec.Selector); err == nil && sel.Matches(labels.Set(l)) {
			out = append(out, controller.Request{Namespace: pdb.Namespace, Name: pdb.Name})
		}
	}
	return out
}

// Reconcile computes one budget's status and writes it if it changed.
// A budget whose status cannot be computed gets FailSafeStatus. Conflicts
// with the eviction handler's writes return an error, so the request is
// retried on a fresher cache.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	pdb, err := r.pdbs.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	now := r.now()
	sel, err := labels.SelectorFromLabelSelector(pdb.Spec.Selector)
	if err != nil {
		return written(r.writeStatus(ctx, pdb, FailSafeStatus(pdb, err, now)), 0)
	}
	pods := r.pods.Namespace(pdb.Namespace).List(sel)
	res, err := ComputeStatus(pdb, pods, r.scaleOf, now)
	if err != nil {
		r.event(pdb, core.EventTypeWarning, ReasonCalculateExpectedFailed, "Failed to calculate the number of expected pods: "+err.Error())
		return written(r.writeStatus(ctx, pdb, FailSafeStatus(pdb, err, now)), 0)
	}
	if statusEqual(&pdb.Status, &res.Status) {
		return controller.Result{RequeueAfter: res.Recheck}, nil
	}
	if len(pods) == 0 {
		r.event(pdb, core.EventTypeNormal, ReasonNoPods, "No matching pods found")
	}
	if len(res.Unmanaged) > 0 {
		r.event(pdb, core.EventTypeWarning, ReasonUnmanagedPods, fmt.Sprintf("Pods selected by this PodDisruptionBudget (selector: %v) "+
			"were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in "+
			"undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", sel))
		r.log.Info("pdb selects unmanaged pods", "pdb", req.String(), "pods", strings.Join(res.Unmanaged, ","))
	}
	return written(r.writeStatus(ctx, pdb, res.Status), res.Recheck)
}

// written turns the outcome of a status write into the reconcile's
// result: an error retries (a conflict, when the eviction handler or a
// newer status wrote first, quietly: the framework requeues conflicts
// without counting them as errors); success rechecks after recheck when
// positive.
func written(err error, recheck time.Duration) (controller.Result, error) {
	if err != nil {
		return controller.Result{}, err
	}
	return controller.Result{RequeueAfter: recheck}, nil
}

// writeStatus writes st as pdb's status, guarded by the resourceVersion
// of the cached pdb (a conflict is returned, and the request retried).
func (r *Controller) writeStatus(ctx context.Context, pdb *policy.PodDisruptionBudget, st policy.PodDisruptionBudgetStatus) error {
	if statusEqual(&pdb.Status, &st) {
		return nil
	}
	upd := *pdb
	upd.Status = st
	_, err := client.For[policy.PodDisruptionBudget](r.client, pdb.Namespace).UpdateStatus(ctx, &upd)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of poddisruptionbudget %s/%s: %w", pdb.Namespace, pdb.Name, err)
	}
	return nil
}

// scaleOf is the controller's ScaleFunc over its listers: a ReplicaSet's
// replicas, or its Deployment's when a Deployment controls it, and a
// StatefulSet's. The object must still have the UID the reference names.
func (r *Controller) scaleOf(ns string, ref *meta.OwnerReference) (Scale, bool, error) {
	if meta.ParseGroupVersion(ref.APIVersion).Group != apps.GroupName {
		return Scale{}, false, nil
	}
	switch ref.Kind {
	case "ReplicaSet":
		rs, err := r.rss.Namespace(ns).Get(ref.Name)
		if err != nil || rs.UID != ref.UID {
			return Scale{}, false, nil
		}
		if owner := meta.ControllerOf(&rs.ObjectMeta); owner != nil && owner.Kind == "Deployment" {
			d, err := r.deps.Namespace(ns).Get(owner.Name)
			if err != nil || d.UID != owner.UID {
				return Scale{}, false, nil
			}
			return Scale{UID: d.UID, Replicas: replicas(d.Spec.Replicas)}, true, nil
		}
		return Scale{UID: rs.UID, Replicas: replicas(rs.Spec.Replicas)}, true, nil
	case "StatefulSet":
		s, err := r.sets.Namespace(ns).Get(ref.Name)
		if err != nil || s.UID != ref.UID {
			return Scale{}, false, nil
		}
		return Scale{UID: s.UID, Replicas: replicas(s.Spec.Replicas)}, true, nil
	}
	return Scale{}, false, nil
}

func replicas(n *int32) int32 {
	if n == nil {
		return 1
	}
	return *n
}

// event records an Event on pdb when the controller has a recorder.
func (r *Controller) event(pdb *policy.PodDisruptionBudget, eventType, reason, message string) {
	if r.rec != nil {
		r.rec.Event(pdb, eventType, reason, message)
	}
}

// statusEqual compares two statuses as the controller writes them
// (a nil and an empty disruptedPods are the same).
func statusEqual(a, b *policy.PodDisruptionBudgetStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.DisruptionsAllowed == b.DisruptionsAllowed &&
		a.CurrentHealthy == b.CurrentHealthy && a.DesiredHealthy == b.DesiredHealthy && a.ExpectedPods == b.ExpectedPods &&
		maps.EqualFunc(a.DisruptedPods, b.DisruptedPods, func(x, y meta.Time) bool { return x.Equal(y.Time) }) &&
		validation.SemanticEqual(a.Conditions, b.Conditions)
}

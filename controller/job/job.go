package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/informer/workqueue"
)

// Default backoff between a failure and the replacement pod, doubling per
// failure up to DefaultMaxBackoff, as Kubernetes' job controller does.
const (
	DefaultBackoff    = 10 * time.Second
	DefaultMaxBackoff = 6 * time.Minute
)

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers reconcile different Jobs at once; default 5.
	Workers int
	// Backoff is the delay before replacing a failed pod, doubled per
	// further failure up to MaxBackoff; defaults DefaultBackoff and
	// DefaultMaxBackoff.
	Backoff, MaxBackoff time.Duration
	// Clock reads the time for deadlines, backoff and TTLs and drives the
	// controller's delayed requeues; default the real clock. Tests pass a
	// *workqueue.FakeClock.
	Clock workqueue.Clock
	// Recorder records the controller's Events; default the manager's
	// (Manager.Recorder).
	Recorder record.Recorder
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

func (o *Config) fill(m *controller.Manager) {
	if o.Workers <= 0 {
		o.Workers = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Clock == nil {
		o.Clock = workqueue.RealClock{}
	}
	if o.Logger == nil {
		o.Logger = m.Logger()
	}
}

// Controller reconciles Jobs. It is a *controller.Controller (add it to the
// Manager it was made on, or Run it) reconciling with its own Reconcile.
// Make one with New; it is safe for concurrent use by the controller's
// workers.
type Controller struct {
	*controller.Controller
	client *client.Client
	jobs   informer.Lister[*batch.Job]
	pods   informer.Lister[*core.Pod]
	// podIndex is the pod cache, indexed by controller (ClaimCandidates).
	podIndex *informer.Indexer[*core.Pod]
	exp      *controller.Expectations
	rec      record.Recorder
	log      *slog.Logger
	opts     Config
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the Job controller over m's shared informers of Jobs and Pods,
// writing through m's client; add it to m (m.Add) to run it while m leads,
// or Run it. It fails with ErrInvalidConfig without a manager, and when an
// informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	cfg.fill(m)
	jobInf, err := controller.InformerFor[batch.Job](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	if err := controller.IndexByController(podInf.Indexer()); err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), jobs: jobInf.Lister(), pods: podInf.Lister(), podIndex: podInf.Indexer(),
		exp: controller.NewExpectations(nil, 0), log: cfg.Logger, opts: cfg}
	if r.rec = cfg.Recorder; r.rec == nil {
		if r.rec, err = m.Recorder(Component); err != nil {
			return nil, err
		}
	}
	c, err := controller.New("job", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, jobInf)
	controller.Watch(c, controller.ObserveExpectations(podInf, r.exp, ownerKey), r.podRequests)
	r.Controller = c
	return r, nil
}

// Expectations returns the controller's expectations (for tests).
func (r *Controller) Expectations() *controller.Expectations { return r.exp }

// podRequests maps a pod to the Job controlling it, or an orphan to every
// Job of its namespace whose selector matches it (to adopt it).
func (r *Controller) podRequests(pod *core.Pod) []controller.Request {
	if ref := meta.ControllerOf(&pod.ObjectMeta); ref != nil {
		if jobRef(pod) == nil {
			return nil
		}
		return []controller.Request{{Namespace: pod.Namespace, Name: ref.Name}}
	}
	return controller.EnqueueSelectingOwners[*core.Pod](r.jobs, func(j *batch.Job) *meta.LabelSelector { return j.Spec.Selector }, nil)(pod)
}

// Reconcile brings one Job's pods and status towards its spec. A write
// that conflicts with a newer version (the cache lagging behind) asks for
// another round without counting as an error.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	j, err := r.jobs.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		r.forget(req)
		return controller.Result{}, r.releaseOrphans(ctx, req, "")
	}
	if err != nil {
		return controller.Result{}, err
	}
	if err := r.releaseOrphans(ctx, req, j.UID); err != nil {
		return controller.Result{}, err
	}
	pods, err := r.claimPods(ctx, j)
	if err != nil {
		return controller.Result{}, err
	}
	if j.DeletionTimestamp != nil {
		return controller.Result{}, r.removeFinalizers(ctx, pods)
	}
	if done, _ := batch.IsFinished(j); done {
		if err := r.removeFinalizers(ctx, pods); err != nil {
			return controller.Result{}, err
		}
		return r.expire(ctx, j)
	}
	return r.sync(ctx, req, j, pods)
}

// sync runs one round for an unfinished Job: track, decide, act, write.
func (r *Controller) sync(ctx context.Context, req controller.Request, j *batch.Job, pods []*core.Pod) (controller.Result, error) {
	now := r.opts.Clock.Now()
	st := newState(j, pods, now)
	var manageErr error
	wait := time.Duration(0)
	switch {
	case !r.exp.Satisfied(req):
	case st.finishing != nil || batch.IsSuspended(j):
		manageErr = r.deletePods(ctx, req, j, st.active)
	default:
		wait, manageErr = r.manage(ctx, req, j, st, now)
	}
	newStatus := st.status(j, now)
	changed, err := r.writeStatus(ctx, j, newStatus)
	if err != nil {
		return controller.Result{}, err
	}
	if changed {
		r.recordTransitions(j, newStatus)
	}
	if err := r.removeFinalizers(ctx, st.toUnfinalize); err != nil {
		return controller.Result{}, err
	}
	if manageErr != nil {
		return controller.Result{}, manageErr
	}
	if d := st.deadlineIn(j, now); d > 0 && (wait == 0 || d < wait) {
		wait = d
	}
	if wait > 0 {
		return controller.Result{RequeueAfter: wait}, nil
	}
	return controller.Result{}, nil
}

// writeStatus writes st unless j has it already. It reports whether it
// wrote; a conflict retries the reconcile.
func (r *Controller) writeStatus(ctx context.Context, j *batch.Job, st batch.JobStatus) (bool, error) {
	if statusEqual(&j.Status, &st) {
		return false, nil
	}
	upd := meta.DeepCopy(j)
	upd.Status = st
	_, err := client.For[batch.Job](r.client, j.Namespace).UpdateStatus(ctx, upd)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("update status of job %s/%s: %w", j.Namespace, j.Name, err)
	}
	return true, nil
}

// recordTransitions records the Events of the conditions st adds to j.
func (r *Controller) recordTransitions(j *batch.Job, st batch.JobStatus) {
	for _, c := range st.Conditions {
		old := batch.FindCondition(&j.Status, c.Type)
		if old != nil && old.Status == c.Status {
			continue
		}
		switch {
		case c.Type == batch.JobComplete && c.Status == meta.ConditionTrue:
			r.event(j, core.EventTypeNormal, ReasonCompleted, "Job completed")
		case c.Type == batch.JobFailed && c.Status == meta.ConditionTrue:
			r.event(j, core.EventTypeWarning, c.Reason, c.Message)
		case c.Type == batch.JobSuspended && c.Status == meta.ConditionTrue:
			r.event(j, core.EventTypeNormal, ReasonSuspended, "Job suspended")
		case c.Type == batch.JobSuspended:
			r.event(j, core.EventTypeNormal, ReasonResumed, "Job resumed")
		}
	}
}

// expire deletes a finished Job whose ttlSecondsAfterFinished has passed,
// or asks to be called again when it will have.
func (r *Controller) expire(ctx context.Context, j *batch.Job) (controller.Result, error) {
	if j.Spec.TTLSecondsAfterFinished == nil {
		return controller.Result{}, nil
	}
	finished := finishTime(j)
	if finished.IsZero() {
		return controller.Result{}, nil
	}
	at := finished.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second)
	if left := at.Sub(r.opts.Clock.Now()); left > 0 {
		return controller.Result{RequeueAfter: left}, nil
	}
	bg := meta.DeletePropagationBackground
	uid := j.UID
	err := client.For[batch.Job](r.client, j.Namespace).Delete(ctx, j.Name,
		&meta.DeleteOptions{PropagationPolicy: &bg, Preconditions: &meta.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return controller.Result{}, fmt.Errorf("delete expired job %s/%s: %w", j.Namespace, j.Name, err)
	}
	return controller.Result{}, nil
}

// finishTime is when j's Complete or Failed condition turned true.
func finishTime(j *batch.Job) time.Time {
	for _, c := range j.Status.Conditions {
		if (c.Type == batch.JobComplete || c.Type == batch.JobFailed) && c.Status == meta.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func (r *Controller) forget(req controller.Request) {
	r.exp.Forget(req)
}

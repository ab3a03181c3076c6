package cronjob

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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

// nextDelta is added to the wait for the next schedule time, so that the
// reconcile comes after it, as Kubernetes does.
const nextDelta = 100 * time.Millisecond

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers reconcile different CronJobs at once; default 5.
	Workers int
	// Clock is the time the schedules are read against; it also drives
	// the controller's delayed requeues. Default the real clock; tests
	// pass a *workqueue.FakeClock.
	Clock workqueue.Clock
	// Recorder records the controller's Events; default the manager's
	// (Manager.Recorder).
	Recorder record.Recorder
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller reconciles CronJobs. It is a *controller.Controller (add it to
// the Manager it was made on, or Run it) reconciling with its own
// Reconcile. Make one with New; it is safe for concurrent use by the
// controller's workers.
type Controller struct {
	*controller.Controller
	client   *client.Client
	cronJobs informer.Lister[*batch.CronJob]
	jobs     informer.Lister[*batch.Job]
	rec      record.Recorder
	log      *slog.Logger
	clock    workqueue.Clock
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the CronJob controller over m's shared informers of CronJobs
// and Jobs, writing through m's client; add it to m (m.Add) to run it while
// m leads, or Run it. It fails with ErrInvalidConfig without a manager, and
// when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	if cfg.Clock == nil {
		cfg.Clock = workqueue.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	cjInf, err := controller.InformerFor[batch.CronJob](m, "")
	if err != nil {
		return nil, err
	}
	jobInf, err := controller.InformerFor[batch.Job](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), cronJobs: cjInf.Lister(), jobs: jobInf.Lister(), log: cfg.Logger, clock: cfg.Clock}
	if r.rec = cfg.Recorder; r.rec == nil {
		if r.rec, err = m.Recorder(Component); err != nil {
			return nil, err
		}
	}
	c, err := controller.New("cronjob", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, cjInf)
	controller.WatchOwned(c, jobInf, controller.OwnerKind{Group: batch.GroupName, Kind: "CronJob"})
	r.Controller = c
	return r, nil
}

// Reconcile brings one CronJob's Jobs and status up to date and runs it
// when a schedule time has come. A status write that conflicts with a
// newer version asks for another round without counting as an error.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	cached, err := r.cronJobs.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if cached.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	cj := meta.DeepCopy(cached)
	jobs := r.ownedJobs(cj)
	if err := r.syncActive(ctx, cj, jobs); err != nil {
		return controller.Result{}, err
	}
	if err := r.cleanHistory(ctx, cj, jobs); err != nil {
		return controller.Result{}, err
	}
	res, runErr := r.run(ctx, cj, jobs)
	if err := r.writeStatus(ctx, cached, cj.Status); err != nil {
		return controller.Result{}, err
	}
	return res, runErr
}

// ownedJobs returns the Jobs cj controls.
func (r *Controller) ownedJobs(cj *batch.CronJob) []*batch.Job {
	var out []*batch.Job
	for _, j := range r.jobs.Namespace(cj.Namespace).List(nil) {
		if ref := meta.ControllerOf(&j.ObjectMeta); ref != nil && ref.UID == cj.UID {
			out = append(out, j)
		}
	}
	return out
}

// syncActive makes status.active the unfinished Jobs and sets
// lastSuccessfulTime from the completed ones.
func (r *Controller) syncActive(ctx context.Context, cj *batch.CronJob, jobs []*batch.Job) error {
	byName := map[string]*batch.Job{}
	for _, j := range jobs {
		byName[j.Name] = j
		done, how := batch.IsFinished(j)
		if !done {
			if !slices.ContainsFunc(cj.Status.Active, func(ref core.ObjectReference) bool { return ref.UID == j.UID }) {
				cj.Status.Active = append(cj.Status.Active, jobReference(j))
			}
			continue
		}
		if how == batch.JobComplete && j.Status.CompletionTime != nil &&
			(cj.Status.LastSuccessfulTime == nil || j.Status.CompletionTime.After(cj.Status.LastSuccessfulTime.Time)) {
			t := *j.Status.CompletionTime
			cj.Status.LastSuccessfulTime = &t
		}
	}
	var keep []core.ObjectReference
	for _, ref := range cj.Status.Active {
		j, ok := byName[ref.Name]
		switch {
		case ok && j.UID == ref.UID:
			if done, how := batch.IsFinished(j); done {
				r.eventf(cj, core.EventTypeNormal, ReasonSawCompletedJob, "Saw completed job: %s, condition: %s", j.Name, how)
				continue
			}
			keep = append(keep, ref)
		default:
			// Not in the cache: ask the API server before dropping it (the
			// cache may lag behind a Job just created).
			_, err := client.For[batch.Job](r.client, cj.Namespace).Get(ctx, ref.Name)
			if apierrors.IsNotFound(err) {
				r.eventf(cj, core.EventTypeNormal, ReasonMissingJob, "Active job went missing: %v", ref.Name)
				continue
			}
			if err != nil {
				return fmt.Errorf("check active job %s/%s: %w", cj.Namespace, ref.Name, err)
			}
			keep = append(keep, ref)
		}
	}
	cj.Status.Active = keep
	return nil
}

func jobReference(j *batch.Job) core.ObjectReference {
	return core.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: j.Namespace, Name: j.Name,
		UID: j.UID, ResourceVersion: j.ResourceVersion}
}

// writeStatus writes st unless cj has it already.
func (r *Controller) writeStatus(ctx context.Context, cj *batch.CronJob, st batch.CronJobStatus) error {
	if statusEqual(&cj.Status, &st) {
		return nil
	}
	upd := meta.DeepCopy(cj)
	upd.Status = st
	_, err := client.For[batch.CronJob](r.client, cj.Namespace).UpdateStatus(ctx, upd)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status of cronjob %s/%s: %w", cj.Namespace, cj.Name, err)
	}
	return nil
}

func statusEqual(a, b *batch.CronJobStatus) bool {
	te := func(x, y *meta.Time) bool {
		if x == nil || y == nil {
			return x == y
		}
		return x.Equal(y.Time)
	}
	if !te(a.LastScheduleTime, b.LastScheduleTime) || !te(a.LastSuccessfulTime, b.LastSuccessfulTime) ||
		len(a.Active) != len(b.Active) {
		return false
	}
	for i := range a.Active {
		if a.Active[i].UID != b.Active[i].UID || a.Active[i].Name != b.Active[i].Name {
			return false
		}
	}
	return true
}

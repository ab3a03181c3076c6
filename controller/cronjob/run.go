package cronjob

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// run starts cj's Job for the most recent schedule time, if one is due
// and allowed, updating cj.Status; it asks to be called again at the next
// schedule time.
func (r *Controller) run(ctx context.Context, cj *batch.CronJob, jobs []*batch.Job) (controller.Result, error) {
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return controller.Result{}, nil
	}
	sched, err := Schedule(cj)
	if err != nil {
		reason := ReasonUnparseableSchedule
		if cj.Spec.TimeZone != nil {
			reason = ReasonUnknownTimeZone
		}
		r.eventf(cj, core.EventTypeWarning, reason, "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return controller.Result{}, controller.TerminalError(err)
	}
	now := r.clock.Now()
	next := func() controller.Result {
		t := sched.Next(now)
		if t.IsZero() {
			return controller.Result{}
		}
		return controller.Result{RequeueAfter: t.Sub(now) + nextDelta}
	}
	scheduled, missed := MostRecent(cj, sched, now)
	if scheduled == nil {
		return next(), nil
	}
	if missed > maxMissed {
		r.eventf(cj, core.EventTypeWarning, ReasonTooManyMissedTimes,
			"too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		r.eventf(cj, core.EventTypeWarning, ReasonMissSchedule, "Missed scheduled time to start a job: %s", scheduled.Format(time.RFC1123Z))
		return next(), nil
	}
	name := JobName(cj, *scheduled)
	if slices.ContainsFunc(jobs, func(j *batch.Job) bool { return j.Name == name }) {
		// Created by an earlier round whose status write was lost.
		if l := cj.Status.LastScheduleTime; l == nil || l.Before(*scheduled) {
			t := meta.NewTime(*scheduled)
			cj.Status.LastScheduleTime = &t
		}
		return next(), nil
	}
	if l := cj.Status.LastScheduleTime; l != nil && l.Equal(*scheduled) {
		return next(), nil
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batch.ForbidConcurrent:
		if len(cj.Status.Active) > 0 {
			r.eventf(cj, core.EventTypeNormal, ReasonJobAlreadyActive,
				"Not starting job because prior execution is running and concurrency policy is Forbid")
			return next(), nil
		}
	case batch.ReplaceConcurrent:
		if err := r.replaceActive(ctx, cj); err != nil {
			return controller.Result{}, err
		}
	}
	if err := r.create(ctx, cj, *scheduled); err != nil {
		return controller.Result{}, err
	}
	return next(), nil
}

// replaceActive deletes cj's active Jobs (and, in the background, their
// pods).
func (r *Controller) replaceActive(ctx context.Context, cj *batch.CronJob) error {
	for len(cj.Status.Active) > 0 {
		ref := cj.Status.Active[0]
		if err := r.deleteJob(ctx, cj, ref.Name, ref.UID); err != nil {
			return err
		}
		cj.Status.Active = cj.Status.Active[1:]
	}
	return nil
}

// deleteJob deletes one of cj's Jobs with background propagation.
func (r *Controller) deleteJob(ctx context.Context, cj *batch.CronJob, name string, uid meta.UID) error {
	bg := meta.DeletePropagationBackground
	err := client.For[batch.Job](r.client, cj.Namespace).Delete(ctx, name,
		&meta.DeleteOptions{PropagationPolicy: &bg, Preconditions: &meta.Preconditions{UID: &uid}})
	switch {
	case err == nil:
		r.eventf(cj, core.EventTypeNormal, ReasonSuccessfulDelete, "Deleted job %s", name)
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
	default:
		r.eventf(cj, core.EventTypeWarning, ReasonFailedDelete, "Deleted job: %v", err)
		return fmt.Errorf("delete job %s/%s: %w", cj.Namespace, name, err)
	}
	return nil
}

// create creates cj's Job for scheduled and records it in cj.Status.
func (r *Controller) create(ctx context.Context, cj *batch.CronJob, scheduled time.Time) error {
	j, err := client.For[batch.Job](r.client, cj.Namespace).Create(ctx, NewJob(cj, scheduled))
	if apierrors.IsAlreadyExists(err) {
		// Created by an earlier round whose status write was lost: adopt
		// the record if it is ours.
		j, err = client.For[batch.Job](r.client, cj.Namespace).Get(ctx, JobName(cj, scheduled))
		if err == nil {
			if ref := meta.ControllerOf(&j.ObjectMeta); ref == nil || ref.UID != cj.UID {
				err = fmt.Errorf("job %s exists and is not controlled by cronjob %s", j.Name, cj.Name)
			}
		}
	} else if err == nil {
		r.eventf(cj, core.EventTypeNormal, ReasonSuccessfulCreate, "Created job %v", j.Name)
	}
	if err != nil {
		r.eventf(cj, core.EventTypeWarning, ReasonFailedCreate, "Error creating job: %v", err)
		return fmt.Errorf("create job for cronjob %s/%s: %w", cj.Namespace, cj.Name, err)
	}
	if done, _ := batch.IsFinished(j); !done &&
		!slices.ContainsFunc(cj.Status.Active, func(ref core.ObjectReference) bool { return ref.UID == j.UID }) {
		cj.Status.Active = append(cj.Status.Active, jobReference(j))
	}
	t := meta.NewTime(scheduled)
	cj.Status.LastScheduleTime = &t
	return nil
}

// NewJob returns the Job cj runs for the scheduled time: its job
// template's labels, annotations and spec, the deterministic name, the
// scheduled-timestamp annotation and a controller reference to cj.
func NewJob(cj *batch.CronJob, scheduled time.Time) *batch.Job {
	t := meta.DeepCopy(&cj.Spec.JobTemplate)
	annotations := map[string]string{}
	for k, v := range t.Annotations {
		annotations[k] = v
	}
	loc := time.UTC
	if cj.Spec.TimeZone != nil {
		if l, err := time.LoadLocation(*cj.Spec.TimeZone); err == nil {
			loc = l
		}
	}
	annotations[batch.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	yes := true
	return &batch.Job{
		ObjectMeta: meta.ObjectMeta{Name: JobName(cj, scheduled), Namespace: cj.Namespace, Labels: t.Labels,
			Annotations: annotations, OwnerReferences: []meta.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob",
				Name: cj.Name, UID: cj.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
		Spec: t.Spec,
	}
}

// cleanHistory deletes the oldest finished Jobs beyond the history
// limits (nil limits keep everything).
func (r *Controller) cleanHistory(ctx context.Context, cj *batch.CronJob, jobs []*batch.Job) error {
	var ok, failed []*batch.Job
	for _, j := range jobs {
		switch done, how := batch.IsFinished(j); {
		case done && how == batch.JobComplete:
			ok = append(ok, j)
		case done:
			failed = append(failed, j)
		}
	}
	for _, g := range []struct {
		jobs  []*batch.Job
		limit *int32
	}{{ok, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if g.limit == nil || len(g.jobs) <= int(*g.limit) {
			continue
		}
		slices.SortFunc(g.jobs, func(a, b *batch.Job) int {
			if c := startOf(a).Compare(startOf(b)); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
		for _, j := range g.jobs[:len(g.jobs)-int(*g.limit)] {
			if j.DeletionTimestamp != nil {
				continue
			}
			if err := r.deleteJob(ctx, cj, j.Name, j.UID); err != nil {
				return err
			}
		}
	}
	return nil
}

// startOf orders a CronJob's Jobs: by the time they were scheduled for
// (their annotation), else their start, else their creation; Kubernetes
// orders by start time, which two Jobs started within a second share.
func startOf(j *batch.Job) time.Time {
	if t, err := time.Parse(time.RFC3339, j.Annotations[batch.CronJobScheduledTimestampAnnotation]); err == nil {
		return t
	}
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

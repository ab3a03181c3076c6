package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/scheduler/framework"
)

// apiWriter writes what the scheduler reports to the API server off the
// scheduling goroutine: Events (through a record.Recorder, which drops
// and counts them rather than wait), PodScheduled=False conditions, and,
// as the Evictor, preemption's deletions and nominations. Its status
// workers stop when run's ctx ends.
type apiWriter struct {
	c      *client.Client
	log    *slog.Logger
	rec    record.Recorder
	status chan statusUpdate
}

type statusUpdate struct {
	pod       *core.Pod
	cond      core.PodCondition
	nominated string
}

var _ Evictor = (*apiWriter)(nil)

func newAPIWriter(c *client.Client, rec record.Recorder, buffer int, log *slog.Logger) *apiWriter {
	return &apiWriter{c: c, rec: rec, log: log, status: make(chan statusUpdate, buffer)}
}

// run writes status updates on two goroutines until ctx ends.
func (w *apiWriter) run(ctx context.Context) {
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			w.loop(ctx)
		}()
	}
	<-done
	<-done
}

func (w *apiWriter) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-w.status:
			w.writeStatus(ctx, u)
		}
	}
}

// event records an Event about pod; it never blocks.
func (w *apiWriter) event(pod *core.Pod, typ, reason, msg string) {
	w.rec.Event(pod, typ, reason, msg)
}

// setUnschedulable queues PodScheduled=False (and nominatedNodeName) for
// pod; it never blocks (a full buffer drops it: the next attempt retries).
func (w *apiWriter) setUnschedulable(pod *core.Pod, msg, nominated string) {
	u := statusUpdate{pod: pod, nominated: nominated, cond: core.PodCondition{Type: core.PodScheduled,
		Status: meta.ConditionFalse, Reason: core.PodReasonUnschedulable, Message: msg, ObservedGeneration: pod.Generation}}
	select {
	case w.status <- u:
	default:
	}
}

func (w *apiWriter) writeStatus(ctx context.Context, u statusUpdate) {
	pods := client.For[core.Pod](w.c, u.pod.Namespace)
	cur := u.pod
	for attempt := 0; attempt < 2; attempt++ {
		cp := meta.DeepCopy(cur)
		changed := core.UpdatePodCondition(&cp.Status, u.cond)
		if u.nominated != "" && cp.Status.NominatedNodeName != u.nominated {
			cp.Status.NominatedNodeName, changed = u.nominated, true
		}
		if !changed || cp.Spec.NodeName != "" {
			return // nothing new, or bound meanwhile
		}
		_, err := pods.UpdateStatus(ctx, cp)
		if err == nil || apierrors.IsNotFound(err) || ctx.Err() != nil {
			return
		}
		if !apierrors.IsConflict(err) {
			w.log.Debug("scheduler: pod status not written", "pod", framework.PodKey(u.pod), "err", err)
			return
		}
		if cur, err = pods.Get(ctx, u.pod.Name); err != nil || cur.UID != u.pod.UID {
			return
		}
	}
}

// Evict implements Evictor: as kube-scheduler does, it first marks a
// victim that has not terminated with DisruptionTarget=True (reason
// PreemptionByScheduler), so its owner and its finalizers can tell a
// preemption from a failure, then deletes it (graceful) and records a
// Preempted event.
func (w *apiWriter) Evict(ctx context.Context, victim, preemptor *core.Pod) error {
	pods := client.For[core.Pod](w.c, victim.Namespace)
	if !core.IsPodTerminal(victim) {
		if err := w.markDisruption(ctx, victim, preemptor); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
	}
	err := pods.Delete(ctx, victim.Name, &meta.DeleteOptions{
		Preconditions: &meta.Preconditions{UID: &victim.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	w.event(victim, core.EventTypeNormal, "Preempted", "Preempted by pod "+framework.PodKey(preemptor)+" on node "+victim.Spec.NodeName)
	return nil
}

// markDisruption writes the DisruptionTarget condition on victim's status,
// retrying once on a conflict with the latest victim. A victim replaced
// by another of the same name meanwhile counts as gone (NotFound).
func (w *apiWriter) markDisruption(ctx context.Context, victim, preemptor *core.Pod) error {
	pods := client.For[core.Pod](w.c, victim.Namespace)
	scheduler := preemptor.Spec.SchedulerName
	if scheduler == "" {
		scheduler = framework.DefaultSchedulerName
	}
	cond := core.PodCondition{Type: core.DisruptionTarget, Status: meta.ConditionTrue,
		Reason:  core.PodReasonPreemptionByScheduler,
		Message: scheduler + ": preempting to accommodate a higher priority pod"}
	cur := victim
	for attempt := 0; ; attempt++ {
		cp := meta.DeepCopy(cur)
		if !core.UpdatePodCondition(&cp.Status, cond) {
			return nil
		}
		_, err := pods.UpdateStatus(ctx, cp)
		if err == nil || !apierrors.IsConflict(err) || attempt > 0 {
			return err
		}
		if cur, err = pods.Get(ctx, victim.Name); err != nil {
			return err
		}
		if cur.UID != victim.UID {
			return apierrors.NewNotFound(meta.GroupResource{Resource: "pods"}, victim.Name)
		}
	}
}

// Nominate implements Evictor: it writes status.nominatedNodeName,
// retrying once on a conflict with the latest pod.
func (w *apiWriter) Nominate(ctx context.Context, pod *core.Pod, node string) error {
	pods := client.For[core.Pod](w.c, pod.Namespace)
	cp := meta.DeepCopy(pod)
	for attempt := 0; ; attempt++ {
		cp.Status.NominatedNodeName = node
		_, err := pods.UpdateStatus(ctx, cp)
		if err == nil || apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) || attempt > 0 {
			return err
		}
		if cp, err = pods.Get(ctx, pod.Name); err != nil {
			return err
		}
	}
}

// bind posts the Binding of pod to node.
func (w *apiWriter) bind(ctx context.Context, pod *core.Pod, node string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return w.c.Bind(ctx, &core.Binding{
		ObjectMeta: meta.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target:     core.ObjectReference{Kind: "Node", APIVersion: "v1", Name: node},
	})
}

package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/scheduler/framework"
)

// apiWriter writes what the scheduler reports to the API server off the
// scheduling goroutine: Events (dropped, and counted, when the buffer is
// full), PodScheduled=False conditions, and, as the Evictor, preemption's
// deletions and nominations. Its workers stop when run's ctx ends.
type apiWriter struct {
	c        *client.Client
	instance string
	log      *slog.Logger
	events   chan *core.Event
	status   chan statusUpdate
	disabled bool
	dropped  atomic.Int64
}

type statusUpdate struct {
	pod       *core.Pod
	cond      core.PodCondition
	nominated string
}

var _ Evictor = (*apiWriter)(nil)

func newAPIWriter(c *client.Client, instance string, buffer int, disabled bool, log *slog.Logger) *apiWriter {
	return &apiWriter{c: c, instance: instance, log: log, disabled: disabled,
		events: make(chan *core.Event, buffer), status: make(chan statusUpdate, buffer)}
}

// run writes events and status updates on two goroutines each until ctx ends.
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
		case ev := <-w.events:
			if _, err := client.For[core.Event](w.c, ev.Namespace).Create(ctx, ev); err != nil && ctx.Err() == nil {
				w.log.Debug("scheduler: event not written", "pod", ev.InvolvedObject.Name, "err", err)
			}
		case u := <-w.status:
			w.writeStatus(ctx, u)
		}
	}
}

// event queues an Event about pod; it never blocks.
func (w *apiWriter) event(pod *core.Pod, typ, reason, msg string) {
	if w.disabled {
		return
	}
	now := meta.Now()
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	ev := &core.Event{
		ObjectMeta: meta.ObjectMeta{Name: pod.Name + "." + hex.EncodeToString(suffix[:]), Namespace: pod.Namespace},
		InvolvedObject: core.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace,
			Name: pod.Name, UID: pod.UID, ResourceVersion: pod.ResourceVersion},
		Reason: reason, Message: msg, Type: typ, Count: 1,
		FirstTimestamp: now, LastTimestamp: now,
		Source:              core.EventSource{Component: framework.DefaultSchedulerName},
		ReportingController: framework.DefaultSchedulerName, ReportingInstance: w.instance,
	}
	select {
	case w.events <- ev:
	default:
		w.dropped.Add(1)
	}
}

// setUnschedulable queues PodScheduled=False (and nominatedNodeName) for
// pod; it never blocks (a full buffer drops it: the next attempt retries).
func (w *apiWriter) setUnschedulable(pod *core.Pod, msg, nominated string) {
	u := statusUpdate{pod: pod, nominated: nominated, cond: core.PodCondition{Type: core.PodScheduled,
		Status: meta.ConditionFalse, Reason: core.PodReasonUnschedulable, Message: msg}}
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

// Evict implements Evictor: it deletes victim (graceful) and records a
// Preempted event.
func (w *apiWriter) Evict(ctx context.Context, victim, preemptor *core.Pod) error {
	err := client.For[core.Pod](w.c, victim.Namespace).Delete(ctx, victim.Name, &meta.DeleteOptions{
		Preconditions: &meta.Preconditions{UID: &victim.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	w.event(victim, "Normal", "Preempted", "Preempted by pod "+framework.PodKey(preemptor)+" on node "+victim.Spec.NodeName)
	return nil
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

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/scheduler/framework"
)

// bindTask is an assumed pod on its way to the API server.
type bindTask struct {
	qp      *QueuedPod
	assumed *core.Pod
	fwk     *framework.Framework
	state   *framework.CycleState
	node    string
	wait    time.Duration // > 0 when a Permit plugin holds the pod
}

// scheduleOne runs one scheduling cycle: pop, snapshot, filter and score,
// assume, reserve, permit, and hand the pod to the binding workers.
func (s *Scheduler) scheduleOne(ctx context.Context) {
	qp, err := s.queue.Pop(ctx)
	if err != nil {
		return
	}
	cycle := s.queue.Cycle()
	pod := qp.Pod
	fwk, err := frameworkFor(s.fwks, pod)
	if err != nil || framework.IsTerminating(pod) || s.cache.Has(pod) {
		s.queue.Done(pod)
		return
	}
	s.attempts.Add(1)
	s.cache.UpdateSnapshot(s.snap)
	state := framework.NewCycleState()
	state.SetPodInfo(qp.PodInfo)
	res, err := s.algo.schedule(ctx, fwk, state, pod, s.snap)
	if err != nil {
		s.handleScheduleError(ctx, fwk, state, qp, cycle, err)
		return
	}
	assumed := *pod
	assumed.Spec.NodeName = res.Node
	pi := *qp.PodInfo
	pi.Pod = &assumed
	if err := s.cache.AssumePod(&pi); err != nil {
		s.fail(qp, fmt.Errorf("assume: %w", err))
		return
	}
	if st := fwk.RunReserve(ctx, state, &assumed, res.Node); !st.IsSuccess() {
		s.forget(&assumed)
		s.failStatus(ctx, qp, cycle, st)
		return
	}
	st, wait := fwk.RunPermit(ctx, state, &assumed, res.Node)
	if !st.IsSuccess() && st.Code() != framework.Wait {
		fwk.RunUnreserve(ctx, state, &assumed, res.Node)
		s.forget(&assumed)
		s.failStatus(ctx, qp, cycle, st)
		return
	}
	task := &bindTask{qp: qp, assumed: &assumed, fwk: fwk, state: state, node: res.Node, wait: wait}
	select {
	case s.bindCh <- task:
	case <-ctx.Done():
	}
}

// handleScheduleError parks or backs off a pod that was not placed, runs
// preemption for one no node fits, and reports the failure.
func (s *Scheduler) handleScheduleError(ctx context.Context, fwk *framework.Framework, state *framework.CycleState, qp *QueuedPod, cycle int64, err error) {
	var fe *FitError
	if errors.Is(err, ErrNoNodes) {
		fe = &FitError{Pod: framework.PodKey(qp.Pod)}
	} else if !errors.As(err, &fe) {
		s.fail(qp, err)
		return
	}
	s.unschedulable.Add(1)
	nominated := ""
	if fwk.HasPostFilters() && len(fe.Statuses) > 0 {
		node, st := fwk.RunPostFilter(ctx, state, s.withNomination(qp.Pod), fe.Statuses)
		switch {
		case node != "":
			nominated = node
			s.preemptions.Add(1)
			s.nominator.add(qp.PodInfo, node)
		case st.Code() == framework.Error:
			s.log.Warn("scheduler: preemption failed", "pod", framework.PodKey(qp.Pod), "err", st.Err())
		case st != nil:
			fe.PostFilterMsg = "preemption: " + st.Message()
		}
	}
	qp.UnschedulablePlugins = fe.Plugins()
	if nominated != "" {
		qp.UnschedulablePlugins[PreemptionName] = true
	}
	msg := fe.Error()
	s.queue.AddUnschedulable(qp, cycle)
	s.writer.event(qp.Pod, "Warning", "FailedScheduling", msg)
	s.writer.setUnschedulable(qp.Pod, msg, nominated)
}

// withNomination returns pod with status.nominatedNodeName set from the
// nominator (the queued object may predate our own status write), so
// preemption sees a pod whose victims are still terminating.
func (s *Scheduler) withNomination(pod *core.Pod) *core.Pod {
	node := s.nominator.nodeOf(pod)
	if node == "" || node == pod.Status.NominatedNodeName {
		return pod
	}
	cp := *pod
	cp.Status.NominatedNodeName = node
	return &cp
}

// failStatus re-queues a pod a Reserve or Permit plugin turned down.
func (s *Scheduler) failStatus(ctx context.Context, qp *QueuedPod, cycle int64, st *framework.Status) {
	if st.IsRejected() {
		qp.UnschedulablePlugins = map[string]bool{st.Plugin(): true}
		s.unschedulable.Add(1)
		s.queue.AddUnschedulable(qp, cycle)
		s.writer.event(qp.Pod, "Warning", "FailedScheduling", st.Message())
		s.writer.setUnschedulable(qp.Pod, st.Message(), "")
		return
	}
	s.fail(qp, st.Err())
}

// fail backs off a pod whose cycle hit an error.
func (s *Scheduler) fail(qp *QueuedPod, err error) {
	s.errs.Add(1)
	s.log.Debug("scheduler: scheduling error", "pod", framework.PodKey(qp.Pod), "err", err)
	s.queue.AddBackoff(qp)
	s.writer.event(qp.Pod, "Warning", "FailedScheduling", err.Error())
}

func (s *Scheduler) forget(pod *core.Pod) {
	if err := s.cache.ForgetPod(pod); err != nil {
		s.log.Debug("scheduler: forget", "pod", framework.PodKey(pod), "err", err)
	}
}

// bindWorker binds assumed pods until ctx ends.
func (s *Scheduler) bindWorker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-s.bindCh:
			s.bindOne(ctx, t)
		}
	}
}

// bindOne waits on Permit if asked, runs the PreBind plugins (volumes
// bound first), binds through the profile's binders or the API server,
// and confirms or undoes the assumption.
func (s *Scheduler) bindOne(ctx context.Context, t *bindTask) {
	pod := t.assumed
	if t.wait > 0 {
		if st := t.fwk.WaitOnPermit(ctx, pod, t.wait); !st.IsSuccess() {
			s.bindFailed(ctx, t, st.Err())
			return
		}
	}
	if st := t.fwk.RunPreBind(ctx, t.state, pod, t.node); !st.IsSuccess() {
		s.bindFailed(ctx, t, st.Err())
		return
	}
	st := t.fwk.RunBind(ctx, t.state, pod, t.node)
	var err error
	if st.IsSkip() {
		err = s.writer.bind(ctx, pod, t.node)
	} else {
		err = st.Err()
	}
	if err != nil {
		s.bindFailed(ctx, t, err)
		return
	}
	if err := s.cache.FinishBinding(pod); err != nil {
		s.log.Debug("scheduler: finish binding", "pod", framework.PodKey(pod), "err", err)
	}
	s.queue.Done(t.qp.Pod)
	s.nominator.remove(pod)
	s.scheduled.Add(1)
	s.writer.event(pod, "Normal", "Scheduled", fmt.Sprintf("Successfully assigned %s to %s", framework.PodKey(pod), t.node))
}

// bindFailed undoes an assumption and re-queues the pod, unless the pod
// is gone or already bound elsewhere (then there is nothing to retry).
func (s *Scheduler) bindFailed(ctx context.Context, t *bindTask, err error) {
	s.forget(t.assumed)
	t.fwk.RunUnreserve(ctx, t.state, t.assumed, t.node)
	s.queue.MoveOnEvent(EventBindingFailed)
	if ctx.Err() != nil {
		s.queue.Done(t.qp.Pod)
		return
	}
	s.bindErrs.Add(1)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		s.queue.Done(t.qp.Pod)
		return
	}
	s.queue.AddBackoff(t.qp)
	s.writer.event(t.qp.Pod, "Warning", "FailedScheduling", "Binding rejected: "+err.Error())
}

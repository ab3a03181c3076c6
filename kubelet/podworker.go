package kubelet

import (
	"context"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// podWorker serialises the syncs of one pod: one goroutine, woken by pod
// updates, runtime events and its own timer. Only the worker goroutine
// touches state; the latest pod and the flags are guarded by mu.
type podWorker struct {
	k      *Kubelet
	uid    meta.UID
	kickCh chan struct{}

	mu       sync.Mutex
	pod      *core.Pod
	removed  bool // gone from the API server
	admitted bool
	done     bool
	syncs    int // completed syncs

	state *podState
}

func newPodWorker(k *Kubelet, pod *core.Pod) *podWorker {
	return &podWorker{k: k, uid: pod.UID, kickCh: make(chan struct{}, 1), pod: pod, state: newPodState()}
}

// update records the latest pod and wakes the worker.
func (w *podWorker) update(pod *core.Pod, removed bool) {
	w.mu.Lock()
	w.pod = pod
	w.removed = w.removed || removed
	w.mu.Unlock()
	w.kick()
}

func (w *podWorker) kick() {
	select {
	case w.kickCh <- struct{}{}:
	default:
	}
}

func (w *podWorker) latest() (*core.Pod, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pod, w.removed
}

func (w *podWorker) finished() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// finishedSync reports whether the worker completed a sync.
func (w *podWorker) finishedSync() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs > 0
}

// admittedPod returns the pod if it was admitted and is not terminal.
func (w *podWorker) admittedPod() *core.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.admitted || w.done {
		return nil
	}
	return w.pod
}

// run syncs the pod until it is torn down and gone, or ctx ends.
func (w *podWorker) run(ctx context.Context) {
	for {
		pod, removed := w.latest()
		next, done := w.k.syncPod(ctx, pod, removed, w.state)
		w.mu.Lock()
		w.admitted = w.state.admitted && !w.state.terminal
		w.done = done
		w.syncs++
		w.mu.Unlock()
		if done || ctx.Err() != nil {
			return
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-w.kickCh:
			t.Stop()
		case <-t.C:
		}
	}
}

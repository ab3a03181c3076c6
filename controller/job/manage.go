package job

import (
	"context"
	"slices"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/controller"
)

// manage creates or deletes pods so that j runs what it still needs. It
// returns how long a failure backoff holds creations back (0: none).
func (r *Controller) manage(ctx context.Context, key controller.Request, j *batch.Job, s *state, now time.Time) (time.Duration, error) {
	create, remove := plan(j, s)
	if err := r.deletePods(ctx, key, j, remove); err != nil {
		return 0, err
	}
	if len(create) == 0 {
		return 0, nil
	}
	if wait := r.backoffLeft(s, now); wait > 0 {
		return wait, nil
	}
	return 0, r.createPods(ctx, key, j, create, s.lastFailed)
}

// backoffLeft returns how long after the last failure the next pod must
// wait: Backoff doubled per failure beyond the first, at most MaxBackoff.
func (r *Controller) backoffLeft(s *state, now time.Time) time.Duration {
	failed := s.failed()
	if failed == 0 || s.lastFailure.IsZero() {
		return 0
	}
	d := r.opts.Backoff
	for i := int32(1); i < failed && d < r.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, r.opts.MaxBackoff)
	return s.lastFailure.Add(d).Sub(now)
}

// plan returns the indexes of the pods to create (zeros for a NonIndexed
// Job) and the active pods to delete.
func plan(j *batch.Job, s *state) (create []int, remove []*core.Pod) {
	parallelism := 1
	if j.Spec.Parallelism != nil {
		parallelism = int(*j.Spec.Parallelism)
	}
	if batch.IsIndexed(j) {
		return planIndexed(j, s, parallelism)
	}
	want := parallelism
	switch c := j.Spec.Completions; {
	case c == nil && s.succeeded() > 0:
		want = min(want, len(s.active)) // a work queue that reported success: no new pods
	case c != nil:
		want = min(want, max(int(*c)-int(s.succeeded()), 0))
	}
	if n := len(s.active) - want; n > 0 {
		return nil, deletionOrder(s.active)[:n]
	}
	if n := want - len(s.active) - len(s.held); n > 0 {
		return make([]int, n), nil
	}
	return nil, nil
}

// planIndexed keeps one active pod per index still to succeed, up to
// parallelism, lowest indexes first.
func planIndexed(j *batch.Job, s *state, parallelism int) (create []int, remove []*core.Pod) {
	n := completions(j)
	running := map[int]bool{}
	for _, p := range s.held {
		if i, ok := podIndex(p, n); ok {
			running[i] = true
		}
	}
	var keep []*core.Pod
	for _, p := range s.active {
		i, ok := podIndex(p, n)
		if !ok || running[i] || s.succeededIdx[i] || s.failedIdx[i] {
			remove = append(remove, p)
			continue
		}
		running[i] = true
		keep = append(keep, p)
	}
	want := min(parallelism, n-s.succeededIdx.len()-s.failedIdx.len())
	if extra := len(keep) - want; extra > 0 {
		slices.SortFunc(keep, func(a, b *core.Pod) int { // drop the highest indexes
			x, _ := podIndex(a, n)
			y, _ := podIndex(b, n)
			return y - x
		})
		return nil, append(remove, keep[:extra]...)
	}
	for i := 0; i < n && len(create) < want-len(keep)-len(s.held); i++ {
		if !running[i] && !s.succeededIdx[i] && !s.failedIdx[i] {
			create = append(create, i)
		}
	}
	return create, remove
}

// deletionOrder sorts pods so that the least useful go first: unbound,
// then pending, then not ready, then the youngest.
func deletionOrder(pods []*core.Pod) []*core.Pod {
	rank := func(p *core.Pod) int {
		switch {
		case p.Spec.NodeName == "":
			return 0
		case p.Status.Phase == core.PodPending:
			return 1
		case !core.IsPodReady(p):
			return 2
		}
		return 3
	}
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b *core.Pod) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return b.CreationTimestamp.Compare(a.CreationTimestamp.Time)
	})
	return out
}

package admission

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// Runner defaults.
const (
	defaultRunnerWorkers  = 4
	defaultRetryDelay     = 200 * time.Millisecond
	defaultRunnerAttempts = 20
	workerQueueLength     = 64
)

// Runner calls Go initializers on the uninitialized objects of a set of
// resources. For every object whose metadata.initializers.pending is
// headed by one of its initializers, it calls Initialize on a copy,
// removes the initializer from pending and updates the object with its
// resourceVersion as precondition; on a conflict it re-reads the object
// and starts again. When the next pending initializer is also its own, it
// goes on at once. When Initialize fails (or panics), it records a
// Failure Status in metadata.initializers.result instead, naming the
// initializer, and the API server deletes the object.
//
// Objects are spread over a fixed number of workers by key, so each object
// is handled by one goroutine at a time and in event order, while a slow
// initializer delays only the objects of its worker. Events made stale by
// the Runner's own writes are skipped when resourceVersions are decimal
// numbers (as orkit's are); with opaque ones they cost a conflict and a
// re-read instead.
//
// A Runner is configured once by NewRunner; Run may be called once.
type Runner struct {
	source     ObjectSource
	resources  []meta.GroupVersionResource
	byName     map[string]Initializer
	workers    int
	retryDelay time.Duration
	attempts   int
	log        *slog.Logger
}

// RunnerOption configures a Runner.
type RunnerOption func(*Runner)

// WithWorkers sets the number of worker goroutines (default 4; n < 1 means 1).
func WithWorkers(n int) RunnerOption { return func(r *Runner) { r.workers = max(n, 1) } }

// WithRetryDelay sets the pause before watching again after a watch ended
// or failed, and before retrying an update that failed for a reason other
// than a conflict (default 200ms).
func WithRetryDelay(d time.Duration) RunnerOption { return func(r *Runner) { r.retryDelay = d } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) RunnerOption { return func(r *Runner) { r.log = l } }

// NewRunner returns a Runner calling initializers on the objects of
// resources, read and written through source. It fails, wrapping
// ErrInvalidRunner, without a source, resources or initializers, or when
// an initializer has no name or two share one.
func NewRunner(source ObjectSource, resources []meta.GroupVersionResource, initializers []Initializer, opts ...RunnerOption) (*Runner, error) {
	if source == nil || len(resources) == 0 || len(initializers) == 0 {
		return nil, fmt.Errorf("%w: a source, resources and initializers are required", ErrInvalidRunner)
	}
	r := &Runner{
		source: source, resources: append([]meta.GroupVersionResource(nil), resources...),
		byName: map[string]Initializer{}, workers: defaultRunnerWorkers,
		retryDelay: defaultRetryDelay, attempts: defaultRunnerAttempts, log: slog.Default(),
	}
	for _, in := range initializers {
		switch name := in.Name(); {
		case name == "":
			return nil, fmt.Errorf("%w: an initializer has no name", ErrInvalidRunner)
		case r.byName[name] != nil:
			return nil, fmt.Errorf("%w: initializer %q given twice", ErrInvalidRunner, name)
		default:
			r.byName[name] = in
		}
	}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// job is one event for a worker.
type job struct {
	gvr meta.GroupVersionResource
	ev  ObjectEvent
}

// Run watches the resources and initializes objects until ctx is
// cancelled; it then waits for its goroutines to stop and returns nil.
func (r *Runner) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queues := make([]chan job, r.workers)
	var wg sync.WaitGroup
	for i := range queues {
		queues[i] = make(chan job, workerQueueLength)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx, queues[i])
		}()
	}
	for _, gvr := range r.resources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.watch(ctx, gvr, queues)
		}()
	}
	<-ctx.Done()
	wg.Wait()
	return nil
}

// watch feeds the events of gvr to the workers, watching again whenever
// the watch ends, until ctx is cancelled.
func (r *Runner) watch(ctx context.Context, gvr meta.GroupVersionResource, queues []chan job) {
	for ctx.Err() == nil {
		ch, err := r.source.Watch(ctx, gvr, true)
		if err != nil {
			r.log.Warn("admission: initializer watch failed", "resource", gvr.String(), "err", err)
		} else if !r.drain(ctx, gvr, ch, queues) {
			return
		}
		if !sleepCtx(ctx, r.retryDelay) {
			return
		}
	}
}

// drain dispatches the events of one watch; false means ctx ended.
func (r *Runner) drain(ctx context.Context, gvr meta.GroupVersionResource, ch <-chan ObjectEvent, queues []chan job) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case ev, ok := <-ch:
			if !ok {
				return true
			}
			if ev.Object == nil {
				continue
			}
			q := queues[shard(gvr, ev.Object, len(queues))]
			select {
			case q <- job{gvr: gvr, ev: ev}:
			case <-ctx.Done():
				return false
			}
		}
	}
}

// shard picks the worker of an object.
func shard(gvr meta.GroupVersionResource, obj meta.Object, n int) int {
	m := obj.GetObjectMeta()
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%s|%s", gvr.String(), m.Namespace, m.Name)
	return int(h.Sum32() % uint32(n))
}

// work handles the jobs of one worker until ctx is cancelled. written
// remembers, per object, the resourceVersion of this worker's last write,
// so the events that the write made stale are skipped.
func (r *Runner) work(ctx context.Context, queue <-chan job) {
	written := map[string]uint64{}
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-queue:
			m := j.ev.Object.GetObjectMeta()
			key := j.gvr.String() + "|" + m.Namespace + "|" + m.Name
			if j.ev.Type == meta.Deleted {
				delete(written, key)
				continue
			}
			if last, ok := written[key]; ok {
				if rv, err := strconv.ParseUint(m.ResourceVersion, 10, 64); err == nil && rv <= last {
					continue
				}
				delete(written, key)
			}
			if rv, ok := r.initialize(ctx, j.gvr, j.ev.Object); ok {
				written[key] = rv
			}
		}
	}
}

// initialize runs the Runner's initializers on obj while one of them heads
// its pending list. It returns the resourceVersion of its last write.
func (r *Runner) initialize(ctx context.Context, gvr meta.GroupVersionResource, obj meta.Object) (uint64, bool) {
	var lastRV uint64
	wrote := false
	for failures, steps := 0, 0; failures < r.attempts && steps < r.attempts+len(r.byName) && ctx.Err() == nil; steps++ {
		in := r.next(obj)
		if in == nil {
			break
		}
		next, failed := r.apply(ctx, in, obj)
		if failed && ctx.Err() != nil {
			break // stopped, not failed: the object is left for the next run
		}
		out, err := r.source.Update(ctx, gvr, next)
		if err == nil && out == nil {
			break
		}
		if err == nil {
			if rv, perr := strconv.ParseUint(out.GetObjectMeta().ResourceVersion, 10, 64); perr == nil {
				lastRV, wrote = rv, true
			}
			if failed {
				break
			}
			obj = out
			continue
		}
		failures++
		m := obj.GetObjectMeta()
		if apierrors.IsNotFound(err) || ctx.Err() != nil {
			break
		}
		if !apierrors.IsConflict(err) {
			r.log.Warn("admission: initializer update failed", "initializer", in.Name(), "resource", gvr.String(),
				"namespace", m.Namespace, "name", m.Name, "err", err)
			if !sleepCtx(ctx, r.retryDelay) {
				break
			}
		}
		fresh, err := r.source.Get(ctx, gvr, m.Namespace, m.Name)
		if err != nil {
			if !apierrors.IsNotFound(err) {
				r.log.Warn("admission: re-read for initializer failed", "resource", gvr.String(),
					"namespace", m.Namespace, "name", m.Name, "err", err)
			}
			break
		}
		obj = fresh
	}
	return lastRV, wrote
}

// next returns the initializer of the Runner that heads obj's pending
// list, or nil when there is none or the object has already failed.
func (r *Runner) next(obj meta.Object) Initializer {
	in := obj.GetObjectMeta().Initializers
	if in == nil || len(in.Pending) == 0 || in.Result != nil {
		return nil
	}
	return r.byName[in.Pending[0].Name]
}

// apply runs in on a copy of obj and returns the object to write: the
// initialized copy without in in pending, or, when in failed, the
// original with a Failure result (failed is then true).
func (r *Runner) apply(ctx context.Context, in Initializer, obj meta.Object) (next meta.Object, failed bool) {
	orig := obj.GetObjectMeta()
	cp := meta.DeepCopy(obj)
	if err := callInitializer(ctx, in, cp); err != nil {
		out := meta.DeepCopy(obj)
		out.GetObjectMeta().Initializers.Result = failureStatus(in.Name(), err)
		return out, true
	}
	m := cp.GetObjectMeta()
	m.Name, m.Namespace, m.UID, m.ResourceVersion = orig.Name, orig.Namespace, orig.UID, orig.ResourceVersion
	if m.Initializers == nil {
		m.Initializers = &meta.Initializers{}
	}
	if p := m.Initializers.Pending; len(p) > 0 && p[0].Name == in.Name() {
		m.Initializers.Pending = p[1:]
	}
	if m.Initializers.Pending == nil {
		// An empty list, not nil: the API server keeps the stored
		// initializers when an update carries none.
		m.Initializers.Pending = []meta.Initializer{}
	}
	return cp, false
}

// errInitializerPanic reports an initializer that panicked.
var errInitializerPanic = errors.New("initializer panicked")

// callInitializer calls in, turning a panic into an error.
func callInitializer(ctx context.Context, in Initializer, obj meta.Object) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errInitializerPanic, p)
		}
	}()
	return in.Initialize(ctx, obj)
}

// failureStatus is the initializers.result recording that name failed
// with err: err's own reason and code when it is a Status, else 500.
func failureStatus(name string, err error) *meta.Status {
	st := &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusFailure,
		Reason:   meta.StatusReasonInternalError,
		Code:     http.StatusInternalServerError,
		Message:  fmt.Sprintf("initializer %s failed: %v", name, err),
	}
	if s := apierrors.FromError(err); s != nil && s.Code != 0 {
		st.Reason, st.Code, st.Details = s.Reason, s.Code, s.Details
	}
	return st
}

// sleepCtx waits d or until ctx is cancelled; false means cancelled.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

package fake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/orkit/orkit/cri"
)

// Runtime is an in-memory cri.Runtime. Create it with New; it is safe for
// concurrent use. It starts no goroutines: the only background work is one
// runtime timer per container set to exit by itself, and one context
// callback per Events subscriber. Close ends event streams and timers;
// afterwards every method fails with cri.ErrClosed.
type Runtime struct {
	opts options

	mu         sync.Mutex
	closed     bool
	down       bool
	seq        uint64
	sandboxes  map[string]*sandbox
	containers map[string]*container
	images     map[string]*image // by ID
	subs       map[*subscriber]struct{}
	failures   map[string]failure
	calls      map[string]int
}

var _ cri.Runtime = (*Runtime)(nil)

// failure is an injected error; remaining < 0 means until cleared.
type failure struct {
	err       error
	remaining int
}

// New returns a Runtime holding the default images (or those of
// WithImages). It fails only on a bad option (ErrUnknownMethod, a
// malformed image ref wrapping cri.ErrInvalidImage).
func New(opts ...Option) (*Runtime, error) {
	o := options{
		latency:     map[string]time.Duration{},
		failures:    map[string]failure{},
		images:      []string{DefaultPauseImage, DefaultHelloImage},
		pauseImage:  DefaultPauseImage,
		program:     helloProgram,
		exec:        helloExec,
		eventBuffer: 1024,
	}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	r := &Runtime{
		opts:       o,
		sandboxes:  map[string]*sandbox{},
		containers: map[string]*container{},
		images:     map[string]*image{},
		subs:       map[*subscriber]struct{}{},
		failures:   maps.Clone(o.failures),
		calls:      map[string]int{},
	}
	for _, ref := range o.images {
		if _, err := r.addImageLocked(ref, ""); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// InjectFailure makes the next times calls of method fail with err
// (times <= 0: every call until ClearFailure). The error returned wraps err.
func (r *Runtime) InjectFailure(method string, err error, times int) error {
	if e := checkMethod(method); e != nil {
		return e
	}
	if times <= 0 {
		times = -1
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures[method] = failure{err: err, remaining: times}
	return nil
}

// ClearFailure removes the failure injected for method.
func (r *Runtime) ClearFailure(method string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, method)
}

// SetDown simulates the runtime's daemon going away (down true) or coming
// back: while down every method but Status fails with cri.ErrUnavailable,
// and Status reports RuntimeReady false. State is kept.
func (r *Runtime) SetDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = down
}

// Calls returns how many times method was called (including calls that
// failed).
func (r *Runtime) Calls(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[method]
}

// Close stops every exit timer, closes every Events channel and makes
// later calls fail with cri.ErrClosed. It is idempotent.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	for _, c := range r.containers {
		c.stopTimer()
	}
	for s := range r.subs {
		close(s.ch)
		delete(r.subs, s)
	}
	return nil
}

// enter is each method's prologue: latency, then closed, down and injected
// failures.
func (r *Runtime) enter(ctx context.Context, method string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, ok := r.opts.latency[method]
	if !ok {
		d = r.opts.defaultLatency
	}
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[method]++
	switch {
	case r.closed:
		return fmt.Errorf("fake runtime %s: %w", method, cri.ErrClosed)
	case r.down && method != "Status":
		return fmt.Errorf("fake runtime %s: %w", method, cri.ErrUnavailable)
	}
	if f, ok := r.failures[method]; ok {
		if f.remaining > 0 {
			f.remaining--
			if f.remaining == 0 {
				delete(r.failures, method)
			} else {
				r.failures[method] = f
			}
		}
		return fmt.Errorf("fake runtime %s: injected failure: %w", method, f.err)
	}
	return nil
}

// newIDLocked returns a fresh sandbox (kind 's') or container ('c') ID.
func (r *Runtime) newIDLocked(kind byte) string {
	r.seq++
	if r.opts.deterministic {
		return fmt.Sprintf("%s%c%d", r.opts.idPrefix, kind, r.seq)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on Linux
	return hex.EncodeToString(b)
}

// Version reports the fake's name and the interface version.
func (r *Runtime) Version(ctx context.Context) (cri.VersionInfo, error) {
	if err := r.enter(ctx, "Version"); err != nil {
		return cri.VersionInfo{}, err
	}
	return cri.VersionInfo{RuntimeName: "fake", RuntimeVersion: "0.1.0", APIVersion: "v1"}, nil
}

// Status reports RuntimeReady, false while SetDown(true). Like
// cri/containerd it leaves NetworkReady to the caller's network.
func (r *Runtime) Status(ctx context.Context) (cri.RuntimeStatus, error) {
	if err := r.enter(ctx, "Status"); err != nil {
		return cri.RuntimeStatus{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cond := cri.RuntimeCondition{Type: cri.RuntimeReady, Status: true}
	if r.down {
		cond = cri.RuntimeCondition{Type: cri.RuntimeReady, Reason: "RuntimeDown", Message: "the simulated runtime is down"}
	}
	return cri.RuntimeStatus{Conditions: []cri.RuntimeCondition{cond}}, nil
}

// Exit makes the running container exit now with code (reason Completed
// for 0, Error otherwise), as if its process ended by itself. It fails
// with cri.ErrNotFound or, when the container is not running,
// cri.ErrFailedPrecondition.
func (r *Runtime) Exit(id string, code int32) error {
	return r.exitOnDemand(id, code, "")
}

// OOMKill makes the running container die as the OOM killer would: an
// OOM event, then exit code 137 with reason OOMKilled.
func (r *Runtime) OOMKill(id string) error {
	return r.exitOnDemand(id, 137, cri.ReasonOOMKilled)
}

func (r *Runtime) exitOnDemand(id string, code int32, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return fmt.Errorf("container %q: %w", id, cri.ErrNotFound)
	}
	if c.status.State != cri.ContainerRunning {
		return fmt.Errorf("container %q is %s, not running: %w", id, c.status.State, cri.ErrFailedPrecondition)
	}
	if reason == cri.ReasonOOMKilled {
		r.emitLocked(c, cri.ContainerEventOOM, 0)
	}
	r.exitLocked(c, code, reason)
	return nil
}

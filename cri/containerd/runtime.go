package containerd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	containerd "github.com/containerd/containerd"
	runcoptions "github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/namespaces"
	"github.com/containerd/containerd/plugin"
	"google.golang.org/grpc"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/images"
)

var _ cri.Runtime = (*Runtime)(nil)

// Runtime is a cri.Runtime on containerd. It is safe for concurrent use.
// It owns a containerd client, an event loop goroutine and the log copiers
// of running containers, all released by Close. Sandboxes and containers
// outlive it: a new Runtime on the same namespace and state directory
// recovers them.
type Runtime struct {
	client *containerd.Client
	cfg    config

	ctx    context.Context // namespaced; canceled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	locks  keyLocks
	// unpacked caches manifest digests known to be unpacked. An image
	// removed and imported again is unpacked by containerd's importer;
	// a stale entry only skips a check, and snapshot creation fails
	// loudly if the layers are really gone.
	unpacked sync.Map

	mu     sync.Mutex
	closed bool
	subs   map[chan cri.ContainerEvent]struct{}
	logs   map[string]*logCopier // by container ID
	kinds  map[string]objKind    // by containerd container ID
}

// objKind is what the event loop needs to know about a containerd object.
type objKind struct {
	sandbox   bool
	sandboxID string
}

// New connects to containerd at address (a unix socket path), recovers
// the state of existing containers (records exits that happened while no
// Runtime ran, re-attaches log copiers) and starts the event loop. Errors
// wrap cri.ErrUnavailable when containerd does not answer.
func New(ctx context.Context, address string, opts ...Option) (_ *Runtime, retErr error) {
	cfg := config{namespace: DefaultNamespace, pauseImage: images.PauseRef, snapshotter: "overlayfs", log: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.stateDir == "" {
		cfg.stateDir = filepath.Join("/run/orkit", cfg.namespace)
	}
	if cfg.runcRoot == "" {
		cfg.runcRoot = filepath.Join(cfg.stateDir, "runc")
	}
	for _, d := range []string{netnsDir, sandboxesDir, fifoDir} {
		if err := os.MkdirAll(filepath.Join(cfg.stateDir, d), 0o711); err != nil {
			return nil, fmt.Errorf("state dir: %w", err)
		}
	}
	// WaitForReady: calls made while containerd restarts wait for the
	// connection (bounded by the caller's context) instead of failing.
	client, err := containerd.New(address, containerd.WithDefaultNamespace(cfg.namespace),
		containerd.WithTimeout(10*time.Second), containerd.WithCallOpts([]grpc.CallOption{grpc.WaitForReady(true)}))
	if err != nil {
		return nil, fmt.Errorf("connect to containerd at %s: %v: %w", address, err, cri.ErrUnavailable)
	}
	defer func() {
		if retErr != nil {
			client.Close()
		}
	}()
	rctx, cancel := context.WithCancel(namespaces.WithNamespace(context.Background(), cfg.namespace))
	r := &Runtime{client: client, cfg: cfg, ctx: rctx, cancel: cancel,
		subs: map[chan cri.ContainerEvent]struct{}{}, logs: map[string]*logCopier{}, kinds: map[string]objKind{}}
	vctx, vcancel := context.WithTimeout(ctx, 10*time.Second)
	defer vcancel()
	if _, err := client.Version(namespaces.WithNamespace(vctx, cfg.namespace)); err != nil {
		cancel()
		return nil, fmt.Errorf("containerd at %s: %v: %w", address, err, cri.ErrUnavailable)
	}
	ready := make(chan struct{})
	r.wg.Add(1)
	go r.eventLoop(ready)
	<-ready
	if err := r.recover(namespaces.WithNamespace(ctx, cfg.namespace)); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close stops the event loop and the log copiers, closes event channels
// and the client. Sandboxes and containers keep running. Calls after the
// first return nil.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	copiers := make([]*logCopier, 0, len(r.logs))
	for _, lc := range r.logs {
		copiers = append(copiers, lc)
	}
	r.mu.Unlock()
	r.cancel()
	for _, lc := range copiers {
		lc.stop()
	}
	r.wg.Wait()
	r.mu.Lock()
	for ch := range r.subs {
		close(ch)
		delete(r.subs, ch)
	}
	r.mu.Unlock()
	return r.client.Close()
}

// nsctx returns ctx in the runtime's containerd namespace, failing when
// the runtime is closed.
func (r *Runtime) nsctx(ctx context.Context) (context.Context, error) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, cri.ErrClosed
	}
	return namespaces.WithNamespace(ctx, r.cfg.namespace), nil
}

// Version reports containerd's version.
func (r *Runtime) Version(ctx context.Context) (cri.VersionInfo, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return cri.VersionInfo{}, err
	}
	v, err := r.client.Version(ctx)
	if err != nil {
		return cri.VersionInfo{}, fmt.Errorf("containerd version: %v: %w", err, cri.ErrUnavailable)
	}
	return cri.VersionInfo{RuntimeName: "containerd", RuntimeVersion: v.Version, APIVersion: "v1"}, nil
}

// Status reports RuntimeReady: whether containerd answers and the pause
// image is present. Networking is the caller's, so NetworkReady is not
// reported.
func (r *Runtime) Status(ctx context.Context) (cri.RuntimeStatus, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return cri.RuntimeStatus{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cond := cri.RuntimeCondition{Type: cri.RuntimeReady, Status: true}
	if _, err := r.client.Version(ctx); err != nil {
		cond = cri.RuntimeCondition{Type: cri.RuntimeReady, Reason: "ContainerdUnavailable", Message: err.Error()}
	} else if _, err := r.client.GetImage(ctx, r.cfg.pauseImage); err != nil {
		cond = cri.RuntimeCondition{Type: cri.RuntimeReady, Reason: "PauseImageMissing",
			Message: fmt.Sprintf("pause image %s: %v", r.cfg.pauseImage, err)}
	}
	return cri.RuntimeStatus{Conditions: []cri.RuntimeCondition{cond}}, nil
}

// runtimeOpt selects the runc v2 shim with the runtime's runc root.
func (r *Runtime) runtimeOpt() containerd.NewContainerOpts {
	return containerd.WithRuntime(plugin.RuntimeRuncV2, &runcoptions.Options{Root: r.cfg.runcRoot})
}

// mapErr translates containerd's errdefs into cri sentinels, naming what.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	var sentinel error
	switch {
	case errdefs.IsNotFound(err):
		sentinel = cri.ErrNotFound
	case errdefs.IsAlreadyExists(err):
		sentinel = cri.ErrAlreadyExists
	case errdefs.IsInvalidArgument(err):
		sentinel = cri.ErrInvalidArgument
	case errdefs.IsFailedPrecondition(err):
		sentinel = cri.ErrFailedPrecondition
	case errdefs.IsUnavailable(err):
		sentinel = cri.ErrUnavailable
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %v: %w", what, err, sentinel)
}

// cleanupCtx is a fresh context for deferred cleanup after a failure.
func cleanupCtx(ns string) (context.Context, context.CancelFunc) {
	return context.WithTimeout(namespaces.WithNamespace(context.Background(), ns), 30*time.Second)
}

// keyLocks serializes operations on one object ID.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*keyLock
}

type keyLock struct {
	mu   sync.Mutex
	refs int
}

// lock locks id and returns its unlock function.
func (k *keyLocks) lock(id string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyLock{}
	}
	l := k.locks[id]
	if l == nil {
		l = &keyLock{}
		k.locks[id] = l
	}
	l.refs++
	k.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		k.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(k.locks, id)
		}
		k.mu.Unlock()
	}
}

// isNotFound reports whether err is containerd's or cri's not-found.
func isNotFound(err error) bool {
	return errdefs.IsNotFound(err) || errors.Is(err, cri.ErrNotFound)
}

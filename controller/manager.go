package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/informer"
)

// Runnable is something a Manager runs while it leads: a *Controller, or
// anything else whose Run blocks until ctx ends and returns nil then. An
// error return before that stops the whole manager.
type Runnable interface {
	Run(ctx context.Context) error
}

var _ Runnable = (*Controller)(nil)

// ManagerConfig configures a Manager. Client is required; the zero value
// of every other field means its default.
type ManagerConfig struct {
	// Client reaches the API server; informers list and watch through it.
	Client *client.Client
	// LeaderElection, when set, makes the manager run its controllers only
	// while it holds the lease. Its OnStartedLeading is replaced by the
	// manager's (which starts the controllers); OnStoppedLeading and
	// OnNewLeader are kept. Client defaults to the manager's.
	LeaderElection *LeaderElectionConfig
	// ResyncPeriod is the informers' default resync period; 0: never.
	ResyncPeriod time.Duration
	// CacheSyncTimeout bounds the wait for the informers' first lists;
	// default DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Manager runs a set of controllers over shared informers: one informer
// per resource and namespace, made through InformerFor on an
// informer.Factory over the client. Run starts the informers (always,
// so that a standby's caches are warm), waits for their caches, and runs
// the controllers — only while leading when leader election is
// configured. When Run's ctx ends it stops the controllers, then releases
// the lease, then stops the informers. Losing the lease ends Run with
// ErrLeaderElectionLost: the process should exit and start again, as
// kube-controller-manager does.
//
// Set up informers, controllers and watches before Run; a Manager runs
// once. Ready and Healthy are safe to call from any goroutine (a /readyz
// or /healthz handler).
type Manager struct {
	cfg     ManagerConfig
	factory *informer.Factory
	elector *LeaderElector

	mu        sync.Mutex
	runnables []Runnable
	ran       bool
	events    *record.Writer // made by the first Recorder call

	running atomic.Bool
	synced  atomic.Bool
	leading atomic.Bool

	// lead runs the controllers while leading; set by Run before the
	// elector starts, read by onStartedLeading on the elector's goroutine.
	lead func(ctx context.Context)
}

// NewManager checks cfg and returns a stopped Manager. It fails with
// ErrInvalidConfig without a client or with invalid leader election
// settings.
func NewManager(cfg ManagerConfig) (*Manager, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: a manager needs a client", ErrInvalidConfig)
	}
	if cfg.CacheSyncTimeout <= 0 {
		cfg.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m := &Manager{cfg: cfg, factory: informer.NewFactory()}
	if cfg.LeaderElection != nil {
		le := *cfg.LeaderElection
		if le.Client == nil && le.Leases == nil {
			le.Client = cfg.Client
		}
		if le.Logger == nil {
			le.Logger = cfg.Logger
		}
		le.OnStartedLeading = m.onStartedLeading
		el, err := NewLeaderElector(le)
		if err != nil {
			return nil, err
		}
		m.elector = el
	}
	return m, nil
}

// Client returns the manager's client.
func (m *Manager) Client() *client.Client { return m.cfg.Client }

// Logger returns the manager's logger, the default logger of the
// controllers made on it.
func (m *Manager) Logger() *slog.Logger { return m.cfg.Logger }

// Factory returns the factory that holds the manager's informers.
func (m *Manager) Factory() *informer.Factory { return m.factory }

// InformerFor returns the manager's shared informer of T's resource in
// namespace ("" for all namespaces, or a cluster-scoped kind), creating
// it on first use (InformerFor[core.ConfigMap](m, "")). Informers list and
// watch through the manager's client; one made after Run started starts
// at once. It fails when T is not in the client's scheme. Cached objects
// carry no metadata.managedFields, as in kube-controller-manager: no
// controller reads them, they are a large part of a small object, and an
// update without them keeps the stored ones.
func InformerFor[T any, PT interface {
	*T
	meta.Object
}](m *Manager, namespace string) (*informer.Informer[PT], error) {
	return informer.ForResource[T, PT](m.factory, m.cfg.Client, informer.Scope{Namespace: namespace},
		informer.Config[PT]{ResyncPeriod: m.cfg.ResyncPeriod, Logger: m.cfg.Logger, Transform: stripManagedFields[PT]})
}

func stripManagedFields[PT meta.Object](o PT) (PT, error) {
	o.GetObjectMeta().ManagedFields = nil
	return o, nil
}

// Recorder returns an Event recorder that records as component (the
// Events' source, "replicaset-controller") through the manager's one
// Event writer, as kube-controller-manager shares one broadcaster:
// Kubernetes-style correlation and rate limits, written asynchronously
// through the manager's client while the manager leads, and flushed when
// it stops. The writer is made and added to the manager on the first call;
// like Add, that fails with ErrAlreadyRunning once Run was called.
// Built-in controllers use it when their Config names no Recorder.
func (m *Manager) Recorder(component string) (record.Recorder, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		if m.ran {
			return nil, fmt.Errorf("%w: a first Recorder of a manager that has run", ErrAlreadyRunning)
		}
		w, err := record.New(m.cfg.Client, record.Config{Source: core.EventSource{Component: "kube-controller-manager"}, Logger: m.cfg.Logger})
		if err != nil {
			return nil, err
		}
		m.events = w
		m.runnables = append(m.runnables, w)
	}
	return m.events.WithSource(core.EventSource{Component: component}), nil
}

// Add adds r (a controller) to what the manager runs while it leads. It
// fails with ErrAlreadyRunning once Run was called.
func (m *Manager) Add(r Runnable) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ran {
		return fmt.Errorf("%w: add to a manager that has run", ErrAlreadyRunning)
	}
	m.runnables = append(m.runnables, r)
	return nil
}

// IsLeader reports whether the manager is running its controllers: it
// holds the lease, or runs without leader election.
func (m *Manager) IsLeader() bool { return m.leading.Load() }

// Elector returns the manager's leader elector (nil without election).
func (m *Manager) Elector() *LeaderElector { return m.elector }

// Ready returns nil once Run has started the informers and their caches
// have synced, else an error wrapping ErrNotReady. A standby (not
// leading) is ready: its caches are warm.
func (m *Manager) Ready() error {
	switch {
	case !m.running.Load():
		return fmt.Errorf("%w: not running", ErrNotReady)
	case !m.synced.Load():
		return fmt.Errorf("%w: caches not synced", ErrNotReady)
	}
	return nil
}

// Healthy returns nil while Run runs, and, as a leader, has renewed the
// lease within the lease duration; otherwise an error wrapping
// ErrUnhealthy (a leader that cannot renew should be restarted).
func (m *Manager) Healthy() error {
	if !m.running.Load() {
		return fmt.Errorf("%w: not running", ErrUnhealthy)
	}
	if el := m.elector; el != nil && el.IsLeader() {
		if since := time.Since(el.LastRenew()); since > el.cfg.LeaseDuration {
			return fmt.Errorf("%w: lease last renewed %v ago", ErrUnhealthy, since.Round(time.Millisecond))
		}
	}
	return nil
}

// Run starts the informers, waits for their caches and runs the
// controllers (while leading, with leader election) until ctx ends, then
// stops everything in order: controllers, lease, informers. It returns
// nil when ctx ends; an error wrapping ErrCacheSyncTimeout,
// ErrLeaderElectionLost or a controller's error otherwise; and
// ErrAlreadyRunning when called twice.
func (m *Manager) Run(ctx context.Context) error {
	runnables, err := m.start()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.running.Store(true)
	defer m.running.Store(false)
	m.factory.Start(ctx)
	defer m.factory.Shutdown()
	if err := m.waitForCaches(ctx); err != nil || ctx.Err() != nil {
		return err
	}
	m.synced.Store(true)
	m.cfg.Logger.Info("manager caches synced", "informers", len(m.factory.Names()))
	if m.elector == nil {
		return m.runAll(ctx, runnables)
	}
	var runErr error // written by lead, which the elector waits for before Run returns
	m.lead = func(lctx context.Context) {
		if runErr = m.runAll(lctx, runnables); runErr != nil {
			cancel()
		}
	}
	err = m.elector.Run(ctx)
	return errors.Join(runErr, err)
}

func (m *Manager) onStartedLeading(ctx context.Context) { m.lead(ctx) }

func (m *Manager) start() ([]Runnable, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ran {
		return nil, fmt.Errorf("%w: manager", ErrAlreadyRunning)
	}
	m.ran = true
	return append([]Runnable(nil), m.runnables...), nil
}

// waitForCaches waits for every informer's first list; nil when ctx ends.
func (m *Manager) waitForCaches(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, m.cfg.CacheSyncTimeout)
	defer cancel()
	var missing []string
	for name, ok := range m.factory.WaitForCacheSync(sctx) {
		if !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 || ctx.Err() != nil {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("%w: informers %v after %v", ErrCacheSyncTimeout, missing, m.cfg.CacheSyncTimeout)
}

// runAll runs every runnable until ctx ends or one fails, which stops the
// others; it returns the first error.
func (m *Manager) runAll(ctx context.Context, runnables []Runnable) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.leading.Store(true)
	defer m.leading.Store(false)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, r := range runnables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				once.Do(func() { first = err })
				cancel()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		m.cfg.Logger.Error("manager stopping: a controller failed", "err", first)
	}
	return first
}

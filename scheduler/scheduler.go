package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// Config configures a Scheduler. Only Client is required; zero values
// mean the documented defaults.
type Config struct {
	// Client talks to the API server (as system:kube-scheduler, whose
	// bootstrap role allows everything the scheduler does).
	Client *client.Client
	// Profiles, one per scheduler name; default one built-in profile for
	// "default-scheduler" (plugins.DefaultProfile). Pods naming another
	// scheduler are left alone.
	Profiles []framework.Profile
	// Extenders are HTTP extenders consulted after the predicates and
	// priorities of every profile.
	Extenders []*Extender
	// Parallelism is the number of goroutines filtering and scoring one
	// pod; default GOMAXPROCS.
	Parallelism int
	// Queue tunes backoff and parking.
	Queue QueueConfig
	// AssumeTTL is how long an assumed pod whose binding was sent may go
	// unconfirmed by the informer before it is dropped; default 30 s.
	AssumeTTL time.Duration
	// BindWorkers is the number of bindings in flight at once; default 64.
	BindWorkers int
	// DisablePreemption turns the preemption PostFilter off. Otherwise a
	// profile without a PostFilter gets the built-in Preemption.
	DisablePreemption bool
	// PriorityClasses makes the scheduler watch PriorityClasses to give
	// pods with a priorityClassName but no spec.priority their class's
	// value (and the global default to pods naming none). It needs
	// list/watch rights on priorityclasses.
	PriorityClasses bool
	// VolumeBinding gives every profile the VolumeBinding plugin (unless
	// it has one): the scheduler watches PersistentVolumeClaims,
	// PersistentVolumes and StorageClasses, keeps a pod whose claims
	// cannot be bound Pending, and binds a pod only after its
	// WaitForFirstConsumer claims, annotated with the chosen node, are
	// bound. It needs list/watch rights on those three and update on
	// persistentvolumeclaims (system:kube-scheduler has them).
	VolumeBinding bool
	// DynamicResources gives every profile the DynamicResources plugin
	// (unless it has one): the scheduler watches DeviceClasses,
	// ResourceSlices and ResourceClaims (resource.k8s.io/v1), keeps a pod
	// whose claims cannot be allocated Pending, and before binding writes
	// each claim's allocation and reserves it for the pod. It needs
	// list/watch rights on those three and update on resourceclaims and
	// resourceclaims/status (system:kube-scheduler has them).
	DynamicResources bool
	// VolumeBindTimeout bounds how long a binding waits for the pod's
	// volumes; default plugins.DefaultVolumeBindTimeout.
	VolumeBindTimeout time.Duration
	// Recorder records the Scheduled, FailedScheduling and Preempted
	// Events. Nil means a record.Writer of the scheduler's own over Client
	// (source "default-scheduler", host Instance), run and flushed by Run;
	// a Recorder given here is run by its owner. Recording never blocks a
	// scheduling cycle: Events that do not fit are dropped and counted.
	Recorder record.Recorder
	// DisableEvents stops the Scheduled/FailedScheduling Events (Recorder
	// is ignored).
	DisableEvents bool
	// EventBuffer bounds the Events waiting to be written by the
	// scheduler's own Writer; more are dropped (and counted). Default 4096.
	EventBuffer int
	// Instance names this scheduler in its own Writer's Events
	// (source.host, reportingInstance); default none.
	Instance string
	// Pods and Nodes, when set, are informers of every pod and every node
	// that the caller runs and shares with the other components of its
	// process, so that the process holds one decoded copy of each object
	// instead of one per component. The scheduler only adds its handlers
	// (removed when Run returns) and waits for them to sync; it never
	// modifies their objects. Nil: the scheduler makes and runs its own.
	Pods  *informer.Informer[*core.Pod]
	Nodes *informer.Informer[*core.Node]
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Stats are counters of a running scheduler.
type Stats struct {
	Attempts, Scheduled, Unschedulable, Errors, BindErrors, Preemptions, EventsDropped int64
}

// Scheduler watches pods and nodes and binds every pending pod it is
// responsible for (spec.schedulerName naming one of its profiles) to a
// node. One goroutine runs scheduling cycles one pod at a time — filter
// and score spread over Parallelism goroutines — while bindings,
// status updates and events are written by their own workers, so the
// next pod is scheduled while the last binding is in flight.
//
// Create one with New and start it with Run; it is not restartable.
type Scheduler struct {
	cfg       Config
	log       *slog.Logger
	fwks      map[string]*framework.Framework
	queue     *Queue
	cache     *Cache
	snap      *framework.Snapshot
	algo      *algorithm
	nominator *nominator
	writer    *apiWriter
	events    *record.Writer // the scheduler's own, or nil
	bindCh    chan *bindTask

	pods    *informer.Informer[*core.Pod]
	nodes   *informer.Informer[*core.Node]
	classes *informer.Informer[*scheduling.PriorityClass]
	// volumes are the informers of VolumeBinding, or nil.
	volumes *volumeInformers
	// dra are the informers of DynamicResources, or nil.
	dra *draInformers
	// namespaces holds namespaces' labels for affinity namespaceSelectors.
	namespaces *informer.Informer[*core.Namespace]
	synced     chan struct{}

	attempts, scheduled, unschedulable, errs, bindErrs, preemptions atomic.Int64
}

// New builds a scheduler from cfg. Errors wrap ErrInvalidConfig.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is required", ErrInvalidConfig)
	}
	cfg.fill()
	s := &Scheduler{cfg: cfg, log: cfg.Logger, cache: NewCache(cfg.AssumeTTL), queue: NewQueue(cfg.Queue),
		snap: framework.NewEmptySnapshot(), nominator: newNominator(), synced: make(chan struct{}),
		bindCh: make(chan *bindTask, cfg.BindWorkers)}
	rec, err := s.recorder()
	if err != nil {
		return nil, err
	}
	s.writer = newAPIWriter(cfg.Client, rec, cfg.EventBuffer, cfg.Logger)
	profiles := cfg.Profiles
	if len(profiles) == 0 {
		profiles = []framework.Profile{defaultProfile()}
	}
	if cfg.VolumeBinding {
		s.volumes = newVolumeInformers(cfg.Client, cfg.Logger)
		profiles = withVolumeBinding(profiles, s.volumes.plugin(cfg.Client, cfg.VolumeBindTimeout))
	}
	if cfg.DynamicResources {
		s.dra = newDRAInformers(cfg.Client, cfg.Logger)
		profiles = withDynamicResources(profiles, s.dra.plugin(cfg.Client))
	}
	var preempts []*Preemption
	if !cfg.DisablePreemption {
		profiles = append([]framework.Profile(nil), profiles...)
		for i := range profiles {
			if hasPostFilter(profiles[i]) {
				continue
			}
			p := NewPreemption(s.writer, cfg.Parallelism)
			preempts = append(preempts, p)
			profiles[i].Plugins = append(append([]framework.Plugin(nil), profiles[i].Plugins...), p)
		}
	}
	fwks, err := buildFrameworks(profiles)
	if err != nil {
		return nil, err
	}
	for _, f := range fwks {
		for _, p := range preempts {
			if p.fwk == nil && containsPlugin(f, p) {
				p.SetFramework(f)
			}
		}
	}
	s.fwks = fwks
	s.algo = newAlgorithm(cfg.Parallelism, cfg.Extenders, s.nominator)
	s.buildInformers()
	return s, nil
}

func (cfg *Config) fill() {
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = runtime.GOMAXPROCS(0)
	}
	if cfg.AssumeTTL <= 0 {
		cfg.AssumeTTL = 30 * time.Second
	}
	if cfg.BindWorkers <= 0 {
		cfg.BindWorkers = 64
	}
	if cfg.EventBuffer <= 0 {
		cfg.EventBuffer = 4096
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
}

// recorder returns the Recorder of cfg, making the scheduler's own Writer
// when none is given.
func (s *Scheduler) recorder() (record.Recorder, error) {
	switch {
	case s.cfg.DisableEvents:
		return record.Discard{}, nil
	case s.cfg.Recorder != nil:
		return s.cfg.Recorder, nil
	}
	w, err := record.New(s.cfg.Client, record.Config{Buffer: s.cfg.EventBuffer, Logger: s.cfg.Logger,
		Source: core.EventSource{Component: framework.DefaultSchedulerName, Host: s.cfg.Instance}})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	s.events = w
	return w, nil
}

func defaultProfile() framework.Profile { return plugins.DefaultProfile("") }

func hasPostFilter(p framework.Profile) bool {
	all := make([]framework.Plugin, 0, len(p.Plugins)+len(p.Predicates)+len(p.Priorities))
	all = append(all, p.Plugins...)
	for _, x := range p.Predicates {
		all = append(all, x)
	}
	for _, x := range p.Priorities {
		all = append(all, x.Priority)
	}
	for _, x := range all {
		if _, ok := x.(framework.PostFilter); ok {
			return true
		}
	}
	return false
}

// containsPlugin reports whether f was built from a profile holding p;
// each profile got its own Preemption, found through the framework's
// PostFilter list.
func containsPlugin(f *framework.Framework, p *Preemption) bool {
	return f.HasPostFilter(p)
}

// Cache returns the scheduler's cache (read it; do not mutate).
func (s *Scheduler) Cache() *Cache { return s.cache }

// Queue returns the scheduling queue.
func (s *Scheduler) Queue() *Queue { return s.queue }

// Synced is closed once the informers have listed nodes and pods and the
// cache and queue hold them.
func (s *Scheduler) Synced() <-chan struct{} { return s.synced }

// Framework returns the framework serving schedulerName ("" for the
// default), or nil; use it to Allow or Reject pods waiting on Permit.
func (s *Scheduler) Framework(schedulerName string) *framework.Framework {
	if schedulerName == "" {
		schedulerName = framework.DefaultSchedulerName
	}
	return s.fwks[schedulerName]
}

// Stats returns the counters so far.
func (s *Scheduler) Stats() Stats {
	return Stats{Attempts: s.attempts.Load(), Scheduled: s.scheduled.Load(), Unschedulable: s.unschedulable.Load(),
		Errors: s.errs.Load(), BindErrors: s.bindErrs.Load(), Preemptions: s.preemptions.Load(),
		EventsDropped: s.eventsDropped()}
}

// eventsDropped counts the Events the scheduler's own Writer dropped (a
// Recorder given in Config counts its own).
func (s *Scheduler) eventsDropped() int64 {
	if s.events == nil {
		return 0
	}
	return s.events.Stats().Dropped
}

// Run starts the informers, waits for them to sync, then schedules until
// ctx ends. It returns after every goroutine it started has stopped: nil
// when ctx ended, or the error that stopped it.
func (s *Scheduler) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	goRun := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	regs, shared := s.addHandlers()
	defer func() {
		for _, r := range shared {
			r.Remove()
		}
	}()
	runInformer := func(name string, run func(context.Context) error) {
		goRun(func() {
			if err := run(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("scheduler: informer stopped", "resource", name, "err", err)
			}
		})
	}
	if s.cfg.Pods == nil {
		runInformer("pods", s.pods.Run)
	}
	if s.cfg.Nodes == nil {
		runInformer("nodes", s.nodes.Run)
	}
	runInformer("namespaces", s.namespaces.Run)
	if s.classes != nil {
		runInformer("priorityclasses", s.classes.Run)
	}
	if s.dra != nil {
		s.dra.run(runInformer)
	}
	if s.volumes != nil {
		s.volumes.run(runInformer)
	}
	if !informer.WaitForCacheSync(ctx, regs...) {
		return nil
	}
	close(s.synced)
	goRun(func() { s.queue.Run(ctx) })
	goRun(func() { s.writer.run(ctx) })
	if s.events != nil {
		goRun(func() { _ = s.events.Run(ctx) })
	}
	goRun(func() { s.cleanupLoop(ctx) })
	for range s.cfg.BindWorkers {
		goRun(func() { s.bindWorker(ctx) })
	}
	for ctx.Err() == nil {
		s.scheduleOne(ctx)
	}
	return nil
}

// cleanupLoop expires assumed pods that were never confirmed.
func (s *Scheduler) cleanupLoop(ctx context.Context) {
	t := time.NewTicker(max(time.Second, s.cfg.AssumeTTL/10))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if expired := s.cache.Cleanup(); len(expired) > 0 {
				s.log.Warn("scheduler: assumed pods expired unconfirmed", "count", len(expired))
				s.queue.MoveOnEvent(EventPodDelete)
			}
		}
	}
}

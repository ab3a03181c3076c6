package testnode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/informer/workqueue"
)

// Config configures an Agent. The zero value registers no nodes; set
// Nodes.
type Config struct {
	// Nodes is how many Node objects to register and serve.
	Nodes int
	// NamePrefix names the nodes NamePrefix0, NamePrefix1, ...; default
	// "test-node-".
	NamePrefix string
	// Capacity of every node (also its allocatable); default 8 CPUs, 32Gi
	// of memory, 110 pods.
	Capacity core.ResourceList
	// Bind makes the agent bind pods with an empty spec.nodeName to its
	// nodes round-robin, for tests that run no scheduler.
	Bind bool
	// ReadyDelay is how long after the agent first sees a pod bound to one
	// of its nodes it reports the pod running; 0 means at once.
	ReadyDelay time.Duration
	// HeartbeatInterval is how often node Leases and Ready conditions are
	// renewed; default 10s.
	HeartbeatInterval time.Duration
	// PodNetwork is the range pod IPs are handed out from; default
	// 10.88.0.0/16. The addresses are never contacted.
	PodNetwork netip.Prefix
	// Workers is how many pods are handled at once; default 4.
	Workers int
	// Logger; default slog.Default().
	Logger *slog.Logger
}

func (o *Config) fill() error {
	if o.Nodes < 0 {
		return fmt.Errorf("%w: %d nodes", ErrInvalidConfig, o.Nodes)
	}
	if o.NamePrefix == "" {
		o.NamePrefix = "test-node-"
	}
	if o.Capacity == nil {
		o.Capacity = core.ResourceList{
			core.ResourceCPU:    resource.MustParse("8"),
			core.ResourceMemory: resource.MustParse("32Gi"),
			core.ResourcePods:   resource.MustParse("110"),
		}
	}
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = 10 * time.Second
	}
	if !o.PodNetwork.IsValid() {
		o.PodNetwork = netip.MustParsePrefix("10.88.0.0/16")
	}
	if !o.PodNetwork.Addr().Is4() {
		return fmt.Errorf("%w: pod network %s is not IPv4", ErrInvalidConfig, o.PodNetwork)
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Agent plays the node agent of Config.Nodes nodes. It is safe for
// concurrent use; Run runs it once, and every goroutine it starts ends
// before Run returns.
type Agent struct {
	c    *client.Client
	opts Config

	nodesMu sync.RWMutex
	nodes   []string       // in order of addition
	own     map[string]int // node name -> stable index (for its address)
	added   int

	fate   atomic.Pointer[FateFunc]
	next   atomic.Uint64 // round-robin binding
	ready  chan struct{}
	pods   *informer.Informer[*core.Pod]
	queued atomic.Pointer[workqueue.Queue[string]]

	mu     sync.Mutex
	seen   map[string]time.Time // pod UID -> first seen bound to us
	ips    map[string]string    // pod UID -> IP
	nextIP uint32
}

// New returns a stopped agent that talks through c.
func New(c *client.Client, opts Config) (*Agent, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: no client", ErrInvalidConfig)
	}
	if err := opts.fill(); err != nil {
		return nil, err
	}
	a := &Agent{c: c, opts: opts, own: map[string]int{}, ready: make(chan struct{}),
		seen: map[string]time.Time{}, ips: map[string]string{}}
	for i := range opts.Nodes {
		a.addName(fmt.Sprintf("%s%d", opts.NamePrefix, i))
	}
	f := FateFunc(AlwaysReady)
	a.fate.Store(&f)
	lw := informer.NewListerWatcher(client.For[core.Pod](c, ""), "", "")
	a.pods = informer.New[*core.Pod](lw, informer.Config[*core.Pod]{Name: "testnode-pods", Logger: opts.Logger})
	return a, nil
}

// NodeNames returns the names of the agent's nodes.
func (a *Agent) NodeNames() []string {
	a.nodesMu.RLock()
	defer a.nodesMu.RUnlock()
	return append([]string(nil), a.nodes...)
}

// addName starts serving node name; it reports false when it already is.
func (a *Agent) addName(name string) bool {
	a.nodesMu.Lock()
	defer a.nodesMu.Unlock()
	if _, ok := a.own[name]; ok {
		return false
	}
	a.nodes = append(a.nodes, name)
	a.own[name] = a.added
	a.added++
	return true
}

// nodeIndex returns node name's stable index, or -1 when the agent does
// not serve it.
func (a *Agent) nodeIndex(name string) int {
	a.nodesMu.RLock()
	defer a.nodesMu.RUnlock()
	if i, ok := a.own[name]; ok {
		return i
	}
	return -1
}

// AddNode registers one more node, Ready, and serves its pods from now
// on (the agent must be running). Adding a node it serves already only
// reports it Ready again.
func (a *Agent) AddNode(ctx context.Context, name string) error {
	a.addName(name)
	if err := a.registerNode(ctx, a.nodeIndex(name), name); err != nil {
		return err
	}
	if err := a.renewLease(ctx, name); err != nil {
		return err
	}
	a.resync()
	return nil
}

// RemoveNode stops serving node name (no more heartbeats, binds or pod
// updates) and, when deleteObject is set, deletes its Node object; with
// deleteObject false the node just goes silent, as a crashed one does.
func (a *Agent) RemoveNode(ctx context.Context, name string, deleteObject bool) error {
	a.nodesMu.Lock()
	delete(a.own, name)
	a.nodes = slices.DeleteFunc(a.nodes, func(n string) bool { return n == name })
	a.nodesMu.Unlock()
	if !deleteObject {
		return nil
	}
	err := client.For[core.Node](a.c, "").Delete(ctx, name, nil)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("testnode: delete node %s: %w", name, err)
	}
	return nil
}

// Ready is closed once Run has registered the nodes and its pod cache has
// synced.
func (a *Agent) Ready() <-chan struct{} { return a.ready }

// SetFate replaces the function deciding each pod's fate (nil restores
// AlwaysReady) and revisits every pod.
func (a *Agent) SetFate(f FateFunc) {
	if f == nil {
		f = AlwaysReady
	}
	a.fate.Store(&f)
	a.resync()
}

// resync revisits every pod.
func (a *Agent) resync() {
	if q := a.queued.Load(); q != nil {
		for _, p := range a.pods.Lister().List(nil) {
			q.Add(informer.KeyOf(p))
		}
	}
}

// Run registers the nodes, then serves their pods until ctx ends. It
// returns an error when the nodes cannot be registered, nil when ctx
// ends.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.registerNodes(ctx); err != nil {
		return err
	}
	q := workqueue.New(workqueue.Config[string]{})
	a.queued.Store(q)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Add(2)
	go func() { defer wg.Done(); _ = a.pods.Run(ctx) }()
	go func() { defer wg.Done(); a.heartbeats(ctx) }()
	enqueue := func(p *core.Pod) { q.Add(informer.KeyOf(p)) }
	reg := a.pods.AddEventHandler(informer.HandlerFuncs[*core.Pod]{
		AddFunc:    func(p *core.Pod, _ bool) { enqueue(p) },
		UpdateFunc: func(_, p *core.Pod) { enqueue(p) },
		DeleteFunc: func(obj any) {
			if p, ok := informer.ObjectOf[*core.Pod](obj); ok {
				a.forget(string(p.UID))
			}
		},
	})
	defer reg.Remove()
	if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
		return nil
	}
	close(a.ready)
	for range a.opts.Workers {
		wg.Add(1)
		go func() { defer wg.Done(); a.worker(ctx, q) }()
	}
	<-ctx.Done()
	return nil
}

func (a *Agent) worker(ctx context.Context, q *workqueue.Queue[string]) {
	for {
		key, err := q.Get(ctx)
		if err != nil {
			return
		}
		again, err := a.sync(ctx, key)
		switch {
		case err != nil && ctx.Err() == nil:
			a.opts.Logger.Debug("testnode: sync pod", "pod", key, "err", err)
			q.AddRateLimited(key)
		case again > 0:
			q.Forget(key)
			q.AddAfter(key, again)
		default:
			q.Forget(key)
		}
		q.Done(key)
	}
}

func (a *Agent) forget(uid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.seen, uid)
	delete(a.ips, uid)
}

var errNoNodes = errors.New("testnode: no nodes to bind to")

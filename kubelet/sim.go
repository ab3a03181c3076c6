package kubelet

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/stats"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/cri/fake"
	"github.com/orkit/orkit/informer"
)

// SimPool runs simulated nodes in one process: each is a full Kubelet over
// its own cri/fake runtime, with no directories, cgroups or network (pod
// IPs come from a per-node fake range), sharing one client, one pod
// informer (every pod, routed by spec.nodeName), one node informer (each
// Node handed to its Kubelet's ObserveNode) and one heartbeat loop.
// An idle simulated node costs four parked goroutines and about 40 KB
// (BenchmarkSimulatedNodes, which counts the in-process API server's copy
// of its Node and Lease too); a Lease renewal every 10 s and an orphan
// sweep of its fake runtime every ResyncInterval are its only steady work.
//
// Make one with NewSimPool, start it with Run, then Add nodes (before or
// after Run). All methods are safe for concurrent use.
type SimPool struct {
	c   *client.Client
	cfg SimConfig

	mu       sync.Mutex
	kubelets map[string]*Kubelet
	order    []*Kubelet
	synced   bool
	ctx      context.Context
	wg       sync.WaitGroup
	pending  []*Kubelet // added before Run
}

// SimConfig configures a SimPool; zero values are documented.
type SimConfig struct {
	// Capacity of each node; nil means 8 CPUs, 32Gi memory, 110 pods.
	Capacity core.ResourceList
	// Base is applied to every node's Config (durations, admission,
	// labels); NodeName, Client, Runtime, Network, RootDir, CgroupRoot,
	// ExternalPods and ExternalHeartbeat are set by the pool; a nil
	// Recorder means record.Discard{} (simulated nodes record no Events).
	Base Config
	// Runtime makes each node's fake runtime; nil means
	// fake.New(fake.WithEventBuffer(16)).
	Runtime func(node string) (*fake.Runtime, error)
	// HeartbeatTick is how often the shared heartbeat loop visits a slice
	// of the nodes (a twentieth per tick); 0 means 500ms, so each node is
	// visited every 10 s.
	HeartbeatTick time.Duration
	// Pods and Nodes, when set, are informers of every pod and every node
	// that the caller runs and shares with the other components of its
	// process (one decoded copy of each object in the process, not one per
	// component); the pool only adds its handlers, removed when Run
	// returns, and never modifies their objects. Nil: the pool makes and
	// runs its own.
	Pods  *informer.Informer[*core.Pod]
	Nodes *informer.Informer[*core.Node]
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// NewSimPool returns a stopped pool talking to the API server through c
// (an identity allowed to act for every simulated node, such as an admin).
func NewSimPool(c *client.Client, cfg SimConfig) *SimPool {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HeartbeatTick <= 0 {
		cfg.HeartbeatTick = 500 * time.Millisecond
	}
	return &SimPool{c: c, cfg: cfg, kubelets: map[string]*Kubelet{}}
}

// Run starts the shared pod informer and heartbeat loop and every node
// added so far, and blocks until ctx ends and all nodes have stopped.
func (p *SimPool) Run(ctx context.Context) error {
	pods, nodes := p.cfg.Pods, p.cfg.Nodes
	if pods == nil {
		lw := informer.NewListerWatcher(client.For[core.Pod](p.c, ""), "", "")
		pods = informer.New[*core.Pod](lw, informer.Config[*core.Pod]{Name: "pods", Logger: p.cfg.Logger,
			Transform: func(pod *core.Pod) (*core.Pod, error) { pod.ManagedFields = nil; return pod, nil }})
		p.wg.Add(1)
		go func() { defer p.wg.Done(); _ = pods.Run(ctx) }()
	}
	if nodes == nil {
		nodes = informer.New[*core.Node](informer.NewListerWatcher(client.For[core.Node](p.c, ""), "", ""),
			informer.Config[*core.Node]{Name: "nodes", Logger: p.cfg.Logger,
				Transform: func(n *core.Node) (*core.Node, error) { n.ManagedFields = nil; return n, nil }})
		p.wg.Add(1)
		go func() { defer p.wg.Done(); _ = nodes.Run(ctx) }()
	}
	reg := pods.AddEventHandler(informer.HandlerFuncs[*core.Pod]{
		AddFunc:    func(pod *core.Pod, initial bool) { p.route(pod, func(k *Kubelet) { k.OnAdd(pod, initial) }) },
		UpdateFunc: func(old, pod *core.Pod) { p.route(pod, func(k *Kubelet) { k.OnUpdate(old, pod) }) },
		DeleteFunc: func(obj any) {
			if pod, ok := informer.ObjectOf[*core.Pod](obj); ok && pod != nil {
				p.route(pod, func(k *Kubelet) { k.OnDelete(obj) })
			}
		},
	}, informer.WithResync(0))
	p.mu.Lock()
	p.ctx = ctx
	pending := p.pending
	p.pending = nil
	p.mu.Unlock()
	for _, k := range pending {
		p.runKubelet(k)
	}
	nreg := nodes.AddEventHandler(informer.HandlerFuncs[*core.Node]{
		AddFunc:    func(n *core.Node, _ bool) { p.observeNode(n) },
		UpdateFunc: func(_, n *core.Node) { p.observeNode(n) },
	}, informer.WithResync(0))
	p.wg.Add(1)
	go func() { defer p.wg.Done(); p.heartbeats(ctx) }()
	if informer.WaitForCacheSync(ctx, reg.HasSynced) {
		p.mu.Lock()
		p.synced = true
		for _, k := range p.order {
			k.MarkSynced()
		}
		p.mu.Unlock()
	}
	<-ctx.Done()
	// A shared informer outlives the pool: its handlers go first.
	reg.Remove()
	nreg.Remove()
	p.wg.Wait()
	return ctx.Err()
}

func (p *SimPool) route(pod *core.Pod, f func(*Kubelet)) {
	if pod.Spec.NodeName == "" {
		return
	}
	p.mu.Lock()
	k := p.kubelets[pod.Spec.NodeName]
	p.mu.Unlock()
	if k != nil {
		f(k)
	}
}

// observeNode hands n to its simulated node's Kubelet, if the pool has one.
func (p *SimPool) observeNode(n *core.Node) {
	p.mu.Lock()
	k := p.kubelets[n.Name]
	p.mu.Unlock()
	if k != nil {
		k.ObserveNode(n)
	}
}

// Add creates simulated node name and starts it (at once if the pool runs,
// else when Run starts). Node i of the pool gets pod IPs from
// 10.(200+i/256).(i%256).0/24.
func (p *SimPool) Add(name string) (*Kubelet, error) {
	rtFn := p.cfg.Runtime
	if rtFn == nil {
		rtFn = func(string) (*fake.Runtime, error) { return fake.New(fake.WithEventBuffer(16)) }
	}
	rt, err := rtFn(name)
	if err != nil {
		return nil, fmt.Errorf("simulated node %s: %w", name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.kubelets[name]; dup {
		return nil, fmt.Errorf("%w: simulated node %q exists", ErrInvalidConfig, name)
	}
	i := len(p.order)
	cfg := p.cfg.Base
	cfg.NodeName, cfg.Client, cfg.Runtime, cfg.Network = name, p.c, rt, nil
	cfg.RootDir, cfg.LogDir, cfg.CgroupRoot, cfg.ServerAddr = "", "", "", ""
	cfg.ExternalPods, cfg.ExternalHeartbeat = true, true
	cfg.FakePodCIDR = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(200 + i/256), byte(i % 256), 0}), 24)
	if cfg.Logger == nil {
		cfg.Logger = p.cfg.Logger
	}
	cfg.Capacity = p.cfg.Capacity
	if cfg.Capacity == nil {
		cfg.Capacity = simCapacity()
	}
	cfg.Prober = alwaysProber{}
	if cfg.Recorder == nil {
		cfg.Recorder = record.Discard{} // Events of simulated nodes cost nothing
	}
	k, err := New(cfg)
	if err != nil {
		return nil, err
	}
	p.kubelets[name] = k
	p.order = append(p.order, k)
	if p.ctx == nil {
		p.pending = append(p.pending, k)
	} else {
		p.runKubelet(k)
	}
	if p.synced {
		k.MarkSynced()
	}
	return k, nil
}

// runKubelet runs k under the pool's context; p.mu may be held.
func (p *SimPool) runKubelet(k *Kubelet) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer k.cfg.Runtime.(*fake.Runtime).Close()
		if err := k.Run(p.ctx); err != nil && p.ctx.Err() == nil {
			p.cfg.Logger.Warn("simulated node stopped", "node", k.NodeName(), "err", err)
		}
	}()
}

// Len returns the number of simulated nodes.
func (p *SimPool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.order)
}

// heartbeats visits a twentieth of the nodes per tick, so each node's
// Heartbeat runs about every 20 ticks and the load is spread evenly. A
// tick's nodes beat from heartbeatWorkers goroutines: one after the other,
// 250 nodes of a 5,000-node pool would need each Lease renewal to take
// under 2 ms, and a busy API server would let every node fall behind its
// grace period at once.
func (p *SimPool) heartbeats(ctx context.Context) {
	t := time.NewTicker(p.cfg.HeartbeatTick)
	defer t.Stop()
	const slices = 20
	for tick := 0; ; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p.mu.Lock()
		var batch []*Kubelet
		for i := tick % slices; i < len(p.order); i += slices {
			batch = append(batch, p.order[i])
		}
		p.mu.Unlock()
		beatAll(ctx, batch)
	}
}

// heartbeatWorkers bounds the Heartbeat calls of one tick in flight.
const heartbeatWorkers = 16

// beatAll runs Heartbeat of every running Kubelet of batch, at most
// heartbeatWorkers at a time, and returns when all have returned.
func beatAll(ctx context.Context, batch []*Kubelet) {
	next := make(chan *Kubelet)
	var wg sync.WaitGroup
	for range min(heartbeatWorkers, len(batch)) {
		wg.Go(func() {
			for k := range next {
				k.mu.Lock()
				running := k.running
				k.mu.Unlock()
				if running {
					k.Heartbeat(ctx)
				}
			}
		})
	}
	for _, k := range batch {
		next <- k
	}
	close(next)
	wg.Wait()
}

func simCapacity() core.ResourceList {
	return core.ResourceList{
		core.ResourceCPU:    mustQuantity("8"),
		core.ResourceMemory: mustQuantity("32Gi"),
		core.ResourcePods:   mustQuantity("110"),
	}
}

// Summary returns the figures of the simulated node called node (as its
// kubelet's /stats/summary would): the usage SimConfig.Base.SyntheticUsage
// gives its running pods. It fails when the pool has no such node.
func (p *SimPool) Summary(ctx context.Context, node string) (*stats.Summary, error) {
	p.mu.Lock()
	k := p.kubelets[node]
	p.mu.Unlock()
	if k == nil {
		return nil, fmt.Errorf("%w: no simulated node %q", ErrNoNode, node)
	}
	return k.Summary(ctx)
}

// Name returns "simulated-nodes" (the pool is a source of node summaries
// for a metrics server).
func (p *SimPool) Name() string { return "simulated-nodes" }

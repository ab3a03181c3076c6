package netpol

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/proxy"
)

// Config configures an Enforcer.
type Config struct {
	// Client reads NetworkPolicies, Pods and Namespaces (list and watch,
	// every namespace). Required.
	Client *client.Client
	// Runner applies the nft scripts; nil means &proxy.NFT{} (nft on
	// PATH, in this network namespace). The service proxy's runner, so
	// both program nftables the same way.
	Runner proxy.Runner
	// Table names the nftables table (family ip); empty means TableName.
	// Two enforcers in one network namespace need two names.
	Table string
	// Nodes names the nodes whose pods this enforcer isolates; nil means
	// every pod (one enforcer for all the nodes of a network namespace).
	// Pods of every node are peers either way.
	Nodes []string
	// MinSyncInterval is the least time between two applies; changes in
	// between are batched. Zero means 100ms.
	MinSyncInterval time.Duration
	// SkipBridgeCheck leaves out Run's check that br_netfilter is
	// loaded (for a network namespace without bridges).
	SkipBridgeCheck bool
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Enforcer enforces NetworkPolicies on a node: it watches policies, pods
// and namespaces and keeps the nftables table equal to Render of them,
// rewriting it whole in one transaction when the rules change. Make one
// with New; Run owns every goroutine and removes the table when it
// returns. Syncs and Err are safe for concurrent use.
type Enforcer struct {
	cfg      Config
	policies *informer.Informer[*networking.NetworkPolicy]
	pods     *informer.Informer[*core.Pod]
	nss      *informer.Informer[*core.Namespace]
	regs     []*informer.Registration
	changed  chan struct{}
	applied  string // the script the table holds; "" before the first apply
	syncs    atomic.Int64
	mu       sync.Mutex
	lastErr  error
}

// New returns an enforcer for cfg; ErrInvalidConfig without a client.
func New(cfg Config) (*Enforcer, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is required", ErrInvalidConfig)
	}
	if cfg.Runner == nil {
		cfg.Runner = &proxy.NFT{}
	}
	if cfg.MinSyncInterval <= 0 {
		cfg.MinSyncInterval = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	e := &Enforcer{cfg: cfg, changed: make(chan struct{}, 1)}
	e.policies = newInformer[networking.NetworkPolicy](cfg, "networkpolicies")
	e.pods = newInformer[core.Pod](cfg, "pods")
	e.nss = newInformer[core.Namespace](cfg, "namespaces")
	e.regs = []*informer.Registration{
		e.policies.AddEventHandler(handlerOf[*networking.NetworkPolicy](e.notify)),
		e.pods.AddEventHandler(handlerOf[*core.Pod](e.notify)),
		e.nss.AddEventHandler(handlerOf[*core.Namespace](e.notify)),
	}
	return e, nil
}

func newInformer[T any, PT interface {
	*T
	meta.Object
}](cfg Config, name string) *informer.Informer[PT] {
	return informer.New[PT](informer.NewListerWatcher(client.For[T, PT](cfg.Client, ""), "", ""),
		informer.Config[PT]{Name: name, Logger: cfg.Logger, Transform: func(o PT) (PT, error) {
			o.GetObjectMeta().ManagedFields = nil
			return o, nil
		}})
}

func handlerOf[T any](f func()) informer.HandlerFuncs[T] {
	return informer.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { f() },
		UpdateFunc: func(T, T) { f() },
		DeleteFunc: func(any) { f() },
	}
}

func (e *Enforcer) notify() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// Syncs counts the successful applies so far (tests wait on it).
func (e *Enforcer) Syncs() int64 { return e.syncs.Load() }

// Err returns the error of the last apply, nil when it succeeded.
func (e *Enforcer) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastErr
}

// Run checks that bridged traffic reaches nftables (ErrNoBridgeNetfilter
// otherwise, unless Config.SkipBridgeCheck), removes any table a previous
// run left, programs the rules once the caches have synced, follows
// changes until ctx is done, then removes the table. It returns the
// error of the check or of the first removal (nft missing or refusing),
// or nil.
func (e *Enforcer) Run(ctx context.Context) error {
	if !e.cfg.SkipBridgeCheck {
		if err := CheckBridgeNetfilter(); err != nil {
			return err
		}
	}
	if err := e.cfg.Runner.Apply(ctx, DeleteScript(e.cfg.Table)); err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = e.policies.Run(ctx) })
	wg.Go(func() { _ = e.pods.Run(ctx) })
	wg.Go(func() { _ = e.nss.Run(ctx) })
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := e.cfg.Runner.Apply(cctx, DeleteScript(e.cfg.Table)); err != nil {
			e.cfg.Logger.Warn("netpol: remove table", "err", err)
		}
	}()
	if !informer.WaitForCacheSync(ctx, e.regs[0].HasSynced, e.regs[1].HasSynced, e.regs[2].HasSynced) {
		return nil
	}
	e.loop(ctx)
	return nil
}

// loop syncs after every change (at most once per MinSyncInterval), and
// retries a failed apply with a backoff, until ctx is done.
func (e *Enforcer) loop(ctx context.Context) {
	retry := time.NewTimer(0)
	defer retry.Stop()
	backoff := time.Second
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.changed:
		case <-retry.C:
		}
		start := time.Now()
		if err := e.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			e.cfg.Logger.Warn("netpol: sync failed; full rewrite next", "err", err, "retryIn", backoff)
			retry.Reset(backoff)
			backoff = min(2*backoff, 30*time.Second)
			continue
		}
		backoff = time.Second
		if wait := e.cfg.MinSyncInterval - time.Since(start); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}
}

// sync renders the caches and rewrites the table when the rules changed.
func (e *Enforcer) sync(ctx context.Context) error {
	rs := Render(e.policies.Lister().List(labels.Everything()), e.pods.Lister().List(labels.Everything()),
		e.nss.Lister().List(labels.Everything()), e.cfg.Nodes)
	rs.Table = e.cfg.Table
	for _, p := range rs.Problems {
		e.cfg.Logger.Warn("netpol: skipped", "problem", p)
	}
	script := rs.Script()
	var err error
	if script != e.applied {
		if err = e.cfg.Runner.Apply(ctx, script); err != nil {
			e.applied = ""
		} else {
			e.applied = script
		}
	}
	e.mu.Lock()
	e.lastErr = err
	e.mu.Unlock()
	if err == nil {
		e.syncs.Add(1)
	}
	return err
}

// bridgeSysctl is where br_netfilter shows itself.
const bridgeSysctl = "/proc/sys/net/bridge/bridge-nf-call-iptables"

// CheckBridgeNetfilter returns ErrNoBridgeNetfilter when br_netfilter is
// not loaded: then traffic between two pods on one bridge is switched
// without ever reaching nftables' ip hooks, and no policy could stop it.
func CheckBridgeNetfilter() error {
	if _, err := os.Stat(bridgeSysctl); err != nil {
		return fmt.Errorf("%w: %v", ErrNoBridgeNetfilter, err)
	}
	return nil
}

// EnableBridgeNetfilter makes the bridge named bridge pass its IPv4
// traffic to nftables' ip hooks (its own nf_call_iptables option, which
// holds whatever the host-wide sysctl says), so traffic between two pods
// on it meets the policies. The bridge must exist; ErrNoBridgeNetfilter
// when br_netfilter is not loaded.
func EnableBridgeNetfilter(bridge string) error {
	if err := CheckBridgeNetfilter(); err != nil {
		return err
	}
	path := filepath.Join("/sys/class/net", bridge, "bridge", "nf_call_iptables")
	if err := os.WriteFile(path, []byte("1"), 0o644); err != nil {
		return fmt.Errorf("bridge %s: enable nf_call_iptables: %w", bridge, err)
	}
	return nil
}

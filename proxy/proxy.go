package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
)

// DefaultServiceCIDRs are orkit's default cluster IP ranges (the API
// server's allocator hands out 10.96.0.0/12).
var DefaultServiceCIDRs = []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12")}

// Config configures a Proxy.
type Config struct {
	// Client reads Services and EndpointSlices. Required.
	Client *client.Client
	// Runner applies the nft scripts; nil means NFT{} (nft on PATH, in
	// this network namespace).
	Runner Runner
	// IPTables, when set, selects the iptables backend with these
	// settings. When neither it nor Runner is set, New takes nft when it
	// is installed and falls back to IPTables{} only when it is not.
	IPTables *IPTables
	// MinSyncInterval is the least time between two applies; changes in
	// between are batched. Zero means 100ms.
	MinSyncInterval time.Duration
	// Table names the proxy's nftables table (family ip); empty means
	// TableName. Two proxies in one network namespace need two names.
	Table string
	// Conntrack clears stale UDP flows after each apply; nil means
	// NetlinkConntrack{} (this network namespace).
	Conntrack Conntrack
	// ServiceCIDRs are the cluster IP ranges: traffic to them that no
	// Service port translated is rejected (output and forward), so a
	// cluster IP without endpoints fails at once. nil means
	// DefaultServiceCIDRs; empty (non-nil) rejects nothing.
	ServiceCIDRs []netip.Prefix
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Proxy is the service proxy of one node: it watches Services and
// EndpointSlices and keeps the nftables table "ip orkit-proxy" equal to
// Render of them, changing only what changed. Make one with New; Run
// owns every goroutine and removes the table when it returns.
type Proxy struct {
	cfg     Config
	cache   *Cache
	applied Ruleset                           // what the table holds; zero before the first apply
	udp     map[udpTarget]map[netip.Addr]bool // UDP targets and backends as last applied
	syncs   atomic.Int64
	mu      sync.Mutex
	lastErr error
}

// New returns a proxy for cfg; ErrInvalidConfig without a client,
// ErrNoBackend when the default runner finds no nft.
func New(cfg Config) (*Proxy, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is required", ErrInvalidConfig)
	}
	if cfg.Runner == nil && cfg.IPTables == nil {
		switch n := (&NFT{}); {
		case n.Available():
			cfg.Runner = n
		case IPTablesAvailable():
			cfg.IPTables = &IPTables{}
		default:
			return nil, ErrNoBackend
		}
	}
	if cfg.MinSyncInterval <= 0 {
		cfg.MinSyncInterval = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Conntrack == nil {
		cfg.Conntrack = NetlinkConntrack{}
	}
	if cfg.ServiceCIDRs == nil {
		cfg.ServiceCIDRs = slices.Clone(DefaultServiceCIDRs)
	}
	if cfg.IPTables != nil && cfg.IPTables.ServiceCIDRs == nil {
		cfg.IPTables.ServiceCIDRs = cfg.ServiceCIDRs
	}
	return &Proxy{cfg: cfg, cache: NewCache(cfg.Client, cfg.Logger)}, nil
}

// Syncs counts the successful applies so far (tests wait on it).
func (p *Proxy) Syncs() int64 { return p.syncs.Load() }

// Err returns the error of the last apply, nil when it succeeded.
func (p *Proxy) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// Run removes any table a previous run left, programs the rules once the
// caches have synced, follows changes until ctx is done, then removes the
// table. It returns the error of the first removal (nft missing or
// refusing) or nil.
func (p *Proxy) Run(ctx context.Context) error {
	if err := p.cleanup(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { p.cache.Run(ctx) })
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := p.cleanup(cctx); err != nil {
			p.cfg.Logger.Warn("proxy: remove table", "err", err)
		}
	}()
	if !p.cache.WaitSynced(ctx) {
		return nil
	}
	retry := time.NewTimer(0)
	defer retry.Stop()
	backoff := time.Second
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-p.cache.Changed():
		case <-retry.C:
		}
		start := time.Now()
		if err := p.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			p.cfg.Logger.Warn("proxy: sync failed; full resync next", "err", err, "retryIn", backoff)
			retry.Reset(backoff)
			backoff = min(2*backoff, 30*time.Second)
			continue
		}
		backoff = time.Second
		if wait := p.cfg.MinSyncInterval - time.Since(start); wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
	}
}

// cleanup removes everything the backend programs.
func (p *Proxy) cleanup(ctx context.Context) error {
	if p.cfg.IPTables != nil {
		return p.cfg.IPTables.Cleanup(ctx)
	}
	return p.cfg.Runner.Apply(ctx, DeleteScript(p.cfg.Table))
}

// sync renders the cache and applies the difference from what the table
// holds (the whole ruleset after a failure or at start), then clears the
// UDP flows the change made stale.
func (p *Proxy) sync(ctx context.Context) error {
	svcs, eps := p.cache.Snapshot()
	err := p.apply(ctx, svcs, eps)
	p.mu.Lock()
	p.lastErr = err
	p.mu.Unlock()
	if err != nil {
		return err
	}
	now := udpBackends(svcs, eps)
	if flows := staleUDP(p.udp, now); len(flows) > 0 {
		if err := p.cfg.Conntrack.DeleteUDP(flows); err != nil {
			p.cfg.Logger.Warn("proxy: clear stale UDP conntrack entries", "flows", len(flows), "err", err)
		}
	}
	p.udp = now
	p.syncs.Add(1)
	return nil
}

// apply programs the backend with the rules of svcs and eps.
func (p *Proxy) apply(ctx context.Context, svcs []*core.Service, eps []*core.Endpoints) error {
	if p.cfg.IPTables != nil {
		return p.cfg.IPTables.Sync(ctx, svcs, eps)
	}
	want := Render(svcs, eps)
	want.Table, want.ServiceCIDRs = p.cfg.Table, p.cfg.ServiceCIDRs
	var script string
	if p.applied.Chains == nil {
		script = want.Script()
	} else {
		script = Diff(p.applied, want)
	}
	if script != "" {
		if err := p.cfg.Runner.Apply(ctx, script); err != nil {
			p.applied = Ruleset{}
			return err
		}
	}
	p.applied = want
	return nil
}

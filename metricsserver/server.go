package metricsserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/metrics"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/stats"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// DefaultResolution is how often nodes are scraped, as metrics-server's
// --metric-resolution defaults it.
const DefaultResolution = 15 * time.Second

// DefaultClientName is the API server's client certificate CN that may
// call the server: the proxy client certificate orkit's control plane
// presents to aggregated APIs (controlplane.FrontProxyClientCN, kubeadm's
// front-proxy-client, signed by the front-proxy CA).
const DefaultClientName = "front-proxy-client"

// Config configures a Server.
type Config struct {
	// Client watches Nodes and Pods (for their labels). Required.
	Client *client.Client
	// Scraper reads the nodes' summaries; default NewNodeProxy(Client).
	Scraper Scraper
	// Resolution is the scrape interval; default DefaultResolution.
	// Metrics appear after the second scrape (rates need two samples).
	Resolution time.Duration
	// Cert is the serving certificate, for Serve; its SANs should name
	// <service>.<namespace>.svc, which the API server verifies.
	Cert *tls.Certificate
	// ClientCA verifies callers' client certificates, for Serve: the CA
	// of the API server's proxy client certificate (the front-proxy CA).
	ClientCA *x509.CertPool
	// ClientNames are the CNs allowed to call; default DefaultClientName.
	ClientNames []string
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Server scrapes the nodes and serves the Metrics API. Make one with New;
// Run scrapes until its context ends; Serve (or ServeHTTP behind a
// listener of the caller's) answers. Safe for concurrent use.
type Server struct {
	cfg  Config
	snap atomic.Pointer[snapshot]

	mu   sync.Mutex // guards prev, written only by Run's loop
	prev map[string]sample

	// nodes and pods are caches of the Nodes and of the Pods' labels (as
	// metrics-server keeps informers): a scrape reads them instead of
	// listing every pod each Resolution, which at 150,000 pods decoded
	// every pod again every 15 s. Sync starts them.
	nodes   *informer.Informer[*core.Node]
	pods    *informer.Informer[*core.Pod]
	syncing atomic.Bool
	synced  chan struct{}
}

// sample is a cumulative CPU figure and when it was taken.
type sample struct {
	at time.Time
	ns uint64
}

// snapshot is what the last scrape found: metrics by node name and by
// namespace/pod name, with their objects' labels.
type snapshot struct {
	nodes map[string]*metrics.NodeMetrics
	pods  map[string]*metrics.PodMetrics
}

// New returns a Server for cfg; it fails with ErrInvalidConfig without a
// Client or with a negative Resolution.
func New(cfg Config) (*Server, error) {
	if cfg.Client == nil || cfg.Resolution < 0 {
		return nil, fmt.Errorf("%w: a client and a non-negative resolution are required", ErrInvalidConfig)
	}
	if cfg.Scraper == nil {
		cfg.Scraper = NewNodeProxy(cfg.Client)
	}
	if cfg.Resolution == 0 {
		cfg.Resolution = DefaultResolution
	}
	if len(cfg.ClientNames) == 0 {
		cfg.ClientNames = []string{DefaultClientName}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, prev: map[string]sample{}, synced: make(chan struct{})}
	s.nodes = informer.New[*core.Node](informer.NewListerWatcher(client.For[core.Node](cfg.Client, ""), "", ""),
		informer.Config[*core.Node]{Name: "nodes", Logger: cfg.Logger, Transform: labelsOnly[*core.Node]})
	s.pods = informer.New[*core.Pod](informer.NewListerWatcher(client.For[core.Pod](cfg.Client, ""), "", ""),
		informer.Config[*core.Pod]{Name: "pods", Logger: cfg.Logger, Transform: labelsOnly[*core.Pod]})
	s.snap.Store(&snapshot{nodes: map[string]*metrics.NodeMetrics{}, pods: map[string]*metrics.PodMetrics{}})
	return s, nil
}

// labelsOnly keeps of an object what a scrape needs: its name, namespace,
// UID and labels.
func labelsOnly[T interface {
	meta.Object
	*E
}, E any](obj T) (T, error) {
	m := obj.GetObjectMeta()
	keep := meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, Labels: m.Labels, ResourceVersion: m.ResourceVersion}
	out := T(new(E))
	*out.GetObjectMeta() = keep
	return out, nil
}

// Sync starts the Server's caches of Nodes and Pods (names and labels
// only), which run until ctx ends, and waits for their first list. Run
// calls it; a caller that calls Scrape itself calls Sync first. A second
// call only waits for the first one's caches.
func (s *Server) Sync(ctx context.Context) error {
	if s.syncing.CompareAndSwap(false, true) {
		go func() { _ = s.nodes.Run(ctx) }()
		go func() { _ = s.pods.Run(ctx) }()
		go func() {
			if informer.WaitForCacheSync(ctx, s.nodes.HasSynced, s.pods.HasSynced) {
				close(s.synced)
			}
		}()
	}
	select {
	case <-s.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run syncs the caches, then scrapes every Resolution until ctx ends; it
// returns nil then. Scrape failures are logged, and the nodes that failed
// drop out of the snapshot until they answer again.
func (s *Server) Run(ctx context.Context) error {
	if err := s.Sync(ctx); err != nil {
		return nil // ctx ended before the first list
	}
	t := time.NewTicker(s.cfg.Resolution)
	defer t.Stop()
	for {
		if err := s.Scrape(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("metrics server: scrape", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Scrape reads every node once and replaces the snapshot. It returns the
// joined errors of the nodes that could not be read (the others are
// still recorded). It fails with ErrNotSynced before Sync.
func (s *Server) Scrape(ctx context.Context) error {
	select {
	case <-s.synced:
	default:
		return ErrNotSynced
	}
	nodes := s.nodes.Lister().List(nil)
	pods := s.pods.Lister()
	podLabels := func(ref stats.PodReference) map[string]string {
		if p, err := pods.Get(ref.Namespace, ref.Name); err == nil && string(p.UID) == ref.UID {
			return p.Labels
		}
		return nil
	}
	sums := make([]*stats.Summary, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range nodes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			sums[i], errs[i] = s.cfg.Scraper.Summary(ctx, nodes[i].Name)
		}()
	}
	wg.Wait()
	next := &snapshot{nodes: map[string]*metrics.NodeMetrics{}, pods: map[string]*metrics.PodMetrics{}}
	s.mu.Lock()
	seen := map[string]bool{}
	for i, sum := range sums {
		if sum == nil {
			continue
		}
		s.record(next, nodes[i], sum, podLabels, seen)
	}
	for k := range s.prev {
		if !seen[k] {
			delete(s.prev, k)
		}
	}
	s.mu.Unlock()
	s.snap.Store(next)
	return errors.Join(errs...)
}

// rate returns the CPU rate of key since its previous sample, and
// records the new one; false on the first sample or a counter reset.
func (s *Server) rate(key string, c *stats.CPUStats, seen map[string]bool) (nanoCores uint64, window time.Duration, ok bool) {
	if c == nil || c.UsageCoreNanoSeconds == nil {
		return 0, 0, false
	}
	seen[key] = true
	cur := sample{at: c.Time.Time, ns: *c.UsageCoreNanoSeconds}
	prev, had := s.prev[key]
	s.prev[key] = cur
	if !had || !cur.at.After(prev.at) || cur.ns < prev.ns {
		return 0, 0, false
	}
	window = cur.at.Sub(prev.at)
	return uint64(float64(cur.ns-prev.ns) / window.Seconds()), window, true
}

func (s *Server) record(next *snapshot, node *core.Node, sum *stats.Summary, podLabels func(stats.PodReference) map[string]string, seen map[string]bool) {
	if nc, w, ok := s.rate("node/"+node.Name, sum.Node.CPU, seen); ok && sum.Node.Memory != nil && sum.Node.Memory.WorkingSetBytes != nil {
		next.nodes[node.Name] = &metrics.NodeMetrics{
			TypeMeta:   meta.TypeMeta{Kind: "NodeMetrics", APIVersion: metrics.GroupVersion().String()},
			ObjectMeta: meta.ObjectMeta{Name: node.Name, Labels: node.Labels, CreationTimestamp: meta.Now()},
			Timestamp:  sum.Node.CPU.Time, Window: meta.Duration{Duration: w},
			Usage: usage(nc, *sum.Node.Memory.WorkingSetBytes),
		}
	}
	for _, p := range sum.Pods {
		pm := &metrics.PodMetrics{
			TypeMeta:   meta.TypeMeta{Kind: "PodMetrics", APIVersion: metrics.GroupVersion().String()},
			ObjectMeta: meta.ObjectMeta{Name: p.PodRef.Name, Namespace: p.PodRef.Namespace, Labels: podLabels(p.PodRef), CreationTimestamp: meta.Now()},
			Containers: []metrics.ContainerMetrics{},
		}
		complete := len(p.Containers) > 0
		for _, c := range p.Containers {
			nc, w, ok := s.rate("pod/"+p.PodRef.UID+"/"+c.Name, c.CPU, seen)
			if !ok || c.Memory == nil || c.Memory.WorkingSetBytes == nil {
				complete = false
				continue
			}
			pm.Timestamp, pm.Window = c.CPU.Time, meta.Duration{Duration: w}
			pm.Containers = append(pm.Containers, metrics.ContainerMetrics{Name: c.Name, Usage: usage(nc, *c.Memory.WorkingSetBytes)})
		}
		if complete { // as metrics-server, a pod is reported with all its containers or not at all
			next.pods[p.PodRef.Namespace+"/"+p.PodRef.Name] = pm
		}
	}
}

func usage(nanoCores, bytes uint64) core.ResourceList {
	return core.ResourceList{
		core.ResourceCPU:    resource.MustParse(fmt.Sprintf("%dn", nanoCores)),
		core.ResourceMemory: *resource.NewQuantity(int64(bytes), resource.BinarySI),
	}
}

// Serve answers on ln with TLS, accepting only clients whose certificate
// ClientCA verifies and whose CN is one of ClientNames, until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.Cert == nil || s.cfg.ClientCA == nil {
		return fmt.Errorf("%w: Serve needs Cert and ClientCA", ErrInvalidConfig)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || !slices.Contains(s.cfg.ClientNames, r.TLS.PeerCertificates[0].Subject.CommonName) {
				writeStatus(w, http.StatusForbidden, "Forbidden", "only the API server may call the metrics server")
				return
			}
			s.ServeHTTP(w, r)
		}),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{*s.cfg.Cert}, ClientCAs: s.cfg.ClientCA,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

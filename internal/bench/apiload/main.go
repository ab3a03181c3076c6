// Command apiload measures the API server from a separate process over
// HTTPS, as a client library would use it:
//
//	apiload -kubeconfig K -clients 32 -duration 20s creates    # 1 KiB ConfigMap creates/s, p50/p99
//	apiload -kubeconfig K -clients 32 -duration 20s -kind pod creates  # the same with pod bodies
//	apiload -kubeconfig K -watchers 100 -updates 500 watch     # write sent → event received, p99
//	apiload -kubeconfig K -nodes 5000 -pods 10000 -pid P populate  # server memory holding them
//	apiload -data-dir D -listen 127.0.0.1:6443 serve  # the API server alone (store + server), in
//	    this process (-etcd-servers URL,... stores in etcd instead of bbolt in D); writes D/loader.kubeconfig for user "loader", bound to ClusterRole edit, so
//	    the load goes through RBAC rather than the system:masters shortcut; -pprof 127.0.0.1:6060
//	    also serves net/http/pprof there (loopback only) for profiles taken under load
//
// It reads the server address and client certificate from a kubeconfig
// whose user authenticates with a client certificate (data or files).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	rpprof "runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
	"github.com/orkit/orkit/store/etcd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig with a client-certificate user")
	ns := flag.String("namespace", "default", "namespace to write in")
	clients := flag.Int("clients", 32, "creates: concurrent clients, each with its own connection")
	duration := flag.Duration("duration", 20*time.Second, "creates: how long to run")
	watchers := flag.Int("watchers", 100, "watch: watchers, each on its own connection")
	updates := flag.Int("updates", 500, "watch: updates of the watched object, one every -interval")
	interval := flag.Duration("interval", 20*time.Millisecond, "watch: time between updates")
	nodes := flag.Int("nodes", 5000, "populate: nodes to create")
	pods := flag.Int("pods", 10000, "populate: pods to create")
	pid := flag.Int("pid", 0, "populate: server process whose memory to report")
	dataDir := flag.String("data-dir", "", "serve: data directory")
	listen := flag.String("listen", "127.0.0.1:6443", "serve: API server address")
	pprofAddr := flag.String("pprof", "", "serve: also serve net/http/pprof on this loopback address")
	etcdServers := flag.String("etcd-servers", "", "serve: comma-separated etcd client URLs to store in (default bbolt in -data-dir)")
	cpuProfile := flag.String("cpuprofile", "", "creates, watch, populate: write this process's CPU profile (the load generator's own cost) to this file")
	kind := flag.String("kind", "configmap", "creates: configmap (1 KiB data) or pod (a scheduler-benchmark-sized pod, unbound)")
	flag.Parse()
	if flag.Arg(0) == "serve" {
		if err := serve(*dataDir, *listen, *pprofAddr, *etcdServers); err != nil {
			fmt.Fprintln(os.Stderr, "apiload:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: apiload [flags] creates|watch|populate")
		os.Exit(2)
	}
	l, err := newLoader(*kubeconfig, *ns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apiload:", err)
			os.Exit(1)
		}
		defer stop()
	}
	switch flag.Arg(0) {
	case "creates":
		err = l.creates(ctx, *kind, *clients, *duration)
	case "watch":
		err = l.watch(ctx, *watchers, *updates, *interval)
	case "populate":
		err = l.populate(ctx, *nodes, *pods, *pid)
	default:
		err = fmt.Errorf("unknown mode %q", flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(1)
	}
}

// startCPUProfile writes this process's CPU profile to path until the
// returned function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := rpprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		rpprof.StopCPUProfile()
		f.Close()
	}, nil
}

// serve runs the store and the API server alone until SIGINT/SIGTERM.
func serve(dir, listen, pprofAddr, etcdServers string) error {
	if dir == "" {
		return fmt.Errorf("serve needs -data-dir")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := controlplane.Config{DataDir: dir, Listen: listen, Logger: logger}
	if etcdServers != "" {
		ecfg := etcd.Config{Endpoints: strings.Split(etcdServers, ","), Logger: logger}
		cfg.Store = func(ctx context.Context, _ string) (store.Interface, error) { return etcd.New(ctx, ecfg) }
	}
	cp, err := controlplane.Start(ctx, cfg)
	if err != nil {
		return err
	}
	if pprofAddr != "" {
		st, _ := cp.Store.(*bbolt.Store) // /debug/store: bbolt only
		if err := servePprof(ctx, pprofAddr, st); err != nil {
			return err
		}
	}
	l, err := newLoader(cp.AdminKubeconfig, "default")
	if err != nil {
		return err
	}
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "loader-edit"},
		"subjects": []map[string]string{{"kind": "User", "name": "loader", "apiGroup": "rbac.authorization.k8s.io"}},
		"roleRef":  map[string]string{"kind": "ClusterRole", "name": "edit", "apiGroup": "rbac.authorization.k8s.io"}}
	b, _ := json.Marshal(binding)
	if err := l.post(l.newClient(), "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", b); err != nil && !strings.Contains(err.Error(), "409") {
		return err
	}
	if err := cp.WriteKubeconfig(filepath.Join(dir, "loader.kubeconfig"), "loader"); err != nil {
		return err
	}
	fmt.Printf("serving at %s (pid %d); %s\n", cp.URL, os.Getpid(), filepath.Join(dir, "loader.kubeconfig"))
	<-ctx.Done()
	return nil
}

// servePprof serves net/http/pprof on addr, which must be a loopback
// address, until ctx is done; /debug/store answers the store's Stats (commits
// and the writes they carried) as JSON.
func servePprof(ctx context.Context, addr string, st *bbolt.Store) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-pprof %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-pprof %q: only a loopback address is allowed", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	if st != nil {
		mux.HandleFunc("/debug/store", func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(st.Stats())
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	return nil
}

type loader struct {
	server string
	tls    *tls.Config
	ns     string
}

func newLoader(path, ns string) (*loader, error) {
	kc, err := client.LoadKubeconfig(path)
	if err != nil {
		return nil, err
	}
	if len(kc.Clusters) == 0 || len(kc.Users) == 0 {
		return nil, fmt.Errorf("%s: needs a cluster and a user", path)
	}
	cl, u := kc.Clusters[0].Cluster, kc.Users[0].User
	cert, err := tls.X509KeyPair(u.ClientCertificateData, u.ClientKeyData)
	if err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cl.CertificateAuthorityData)
	return &loader{server: cl.Server, ns: ns, tls: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}, nil
}

// newClient returns an HTTP/2 client with its own connection.
func (l *loader) newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: l.tls.Clone(), ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 4}, Timeout: 30 * time.Second}
}

func (l *loader) post(c *http.Client, path string, body []byte) error {
	resp, err := c.Post(l.server+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, b)
	}
	return nil
}

// creates runs clients goroutines creating objects of kind ("configmap":
// 1 KiB of data; "pod": an unbound pod like the scheduler benchmark's) for d.
func (l *loader) creates(ctx context.Context, kind string, clients int, d time.Duration) error {
	payload := strings.Repeat("x", 1024)
	resource, body := "configmaps", func(name string) []byte {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name}, "data": map[string]string{"v": payload}})
		return b
	}
	switch kind {
	case "configmap":
	case "pod":
		resource, body = "pods", unboundPodJSON
	default:
		return fmt.Errorf("-kind %q: want configmap or pod", kind)
	}
	var (
		mu   sync.Mutex
		lats []time.Duration
		errs atomic.Int64
		wg   sync.WaitGroup
	)
	run := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	start := time.Now()
	deadline := start.Add(d)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := l.newClient()
			var mine []time.Duration
			for n := 0; time.Now().Before(deadline); n++ {
				b := body(fmt.Sprintf("load-%s-%d-%d", run, i, n))
				t0 := time.Now()
				if err := l.post(c, "/api/v1/namespaces/"+l.ns+"/"+resource, b); err != nil {
					if errs.Add(1) == 1 {
						fmt.Fprintln(os.Stderr, "first error:", err)
					}
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	el := time.Since(start)
	fmt.Printf("creates: kind=%s clients=%d duration=%s ok=%d errors=%d rate=%.0f/s p50=%s p99=%s\n",
		kind, clients, el.Round(time.Millisecond), len(lats), errs.Load(), float64(len(lats))/el.Seconds(), pct(lats, 50), pct(lats, 99))
	return nil
}

// watch opens watchers, updates one ConfigMap every interval and measures,
// per watcher and event, the time from sending the write to receiving it.
func (l *loader) watch(ctx context.Context, watchers, updates int, interval time.Duration) error {
	c := l.newClient()
	name := fmt.Sprintf("watched-%d", time.Now().UnixNano()%1e9)
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": map[string]string{"seq": "0"}})
	if err := l.post(c, "/api/v1/namespaces/"+l.ns+"/configmaps", body); err != nil {
		return err
	}
	sent := make([]atomic.Int64, updates+1) // unix nanos when update i was sent
	arr := newArrivals(updates)
	var acks []time.Duration // update sent -> its response received
	var (
		mu      sync.Mutex
		lats    []time.Duration
		missing atomic.Int64
		ready   sync.WaitGroup
		done    sync.WaitGroup
	)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < watchers; w++ {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			got := l.watchOne(wctx, name, updates, sent, arr, &ready)
			mu.Lock()
			defer mu.Unlock()
			missing.Add(int64(updates - len(got)))
			lats = append(lats, got...)
		}()
	}
	ready.Wait()
	for i := 1; i <= updates; i++ {
		patch := fmt.Sprintf(`{"data":{"seq":"%d"}}`, i)
		req, _ := http.NewRequestWithContext(ctx, "PATCH", l.server+"/api/v1/namespaces/"+l.ns+"/configmaps/"+name, strings.NewReader(patch))
		req.Header.Set("Content-Type", "application/merge-patch+json")
		sent[i].Store(time.Now().UnixNano())
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		acks = append(acks, time.Duration(time.Now().UnixNano()-sent[i].Load()))
		time.Sleep(interval)
	}
	time.Sleep(2 * time.Second) // let the last events arrive before counting
	cancel()
	done.Wait()
	first, spread := arr.summary(sent)
	fmt.Printf("watch: watchers=%d updates=%d events=%d missing=%d p50=%s p99=%s max=%s\n",
		watchers, updates, len(lats), missing.Load(), pct(lats, 50), pct(lats, 99), pct(lats, 100))
	fmt.Printf("watch: write acked p50=%s p99=%s; first watcher p50=%s p99=%s; first->last watcher spread p50=%s p99=%s\n",
		pct(acks, 50), pct(acks, 99), pct(first, 50), pct(first, 99), pct(spread, 50), pct(spread, 99))
	return nil
}

// arrivals keeps, per update, the first and the last time a watcher
// received it (unix nanos), to tell the fan-out spread from the rest.
type arrivals struct{ first, last []atomic.Int64 }

func newArrivals(updates int) *arrivals {
	return &arrivals{first: make([]atomic.Int64, updates+1), last: make([]atomic.Int64, updates+1)}
}

func (a *arrivals) record(seq int, now int64) {
	for f := a.first[seq].Load(); f == 0 || now < f; f = a.first[seq].Load() {
		if a.first[seq].CompareAndSwap(f, now) {
			break
		}
	}
	for l := a.last[seq].Load(); now > l; l = a.last[seq].Load() {
		if a.last[seq].CompareAndSwap(l, now) {
			break
		}
	}
}

// summary returns, over the updates some watcher received, send -> first
// arrival and first -> last arrival.
func (a *arrivals) summary(sent []atomic.Int64) (first, spread []time.Duration) {
	for i := 1; i < len(a.first); i++ {
		f, l := a.first[i].Load(), a.last[i].Load()
		if f == 0 {
			continue
		}
		first = append(first, time.Duration(f-sent[i].Load()))
		spread = append(spread, time.Duration(l-f))
	}
	return first, spread
}

func (l *loader) watchOne(ctx context.Context, name string, updates int, sent []atomic.Int64, arr *arrivals, ready *sync.WaitGroup) []time.Duration {
	c := l.newClient()
	c.Timeout = 0
	req, _ := http.NewRequestWithContext(ctx, "GET", l.server+"/api/v1/namespaces/"+l.ns+"/configmaps?watch=1&fieldSelector=metadata.name%3D"+name, nil)
	resp, err := c.Do(req)
	if err != nil {
		ready.Done()
		return nil
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var got []time.Duration
	first := true
	for sc.Scan() {
		now := time.Now().UnixNano()
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Data map[string]string `json:"data"`
			} `json:"object"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if first { // the initial ADDED: the watch is established
			first = false
			ready.Done()
			continue
		}
		var seq int
		fmt.Sscan(ev.Object.Data["seq"], &seq)
		if seq > 0 && seq <= updates {
			got = append(got, time.Duration(now-sent[seq].Load()))
			arr.record(seq, now)
		}
	}
	if first {
		ready.Done()
	}
	return got
}

// populate creates nodes and pods (with realistic specs and statuses) and
// reports the server's resident memory.
func (l *loader) populate(ctx context.Context, nodes, pods, pid int) error {
	rss := func() string {
		if pid == 0 {
			return "n/a (no -pid)"
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return err.Error()
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "VmRSS:") {
				return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
			}
		}
		return "?"
	}
	fmt.Printf("populate: before: rss=%s\n", rss())
	start := time.Now()
	if err := l.parallel(16, nodes, func(c *http.Client, i int) error {
		return l.post(c, "/api/v1/nodes", nodeJSON(i))
	}); err != nil {
		return err
	}
	if err := l.parallel(16, pods, func(c *http.Client, i int) error {
		return l.post(c, "/api/v1/namespaces/"+l.ns+"/pods", podJSON(i, nodes))
	}); err != nil {
		return err
	}
	fmt.Printf("populate: nodes=%d pods=%d in %s; after: rss=%s\n", nodes, pods, time.Since(start).Round(time.Millisecond), rss())
	return nil
}

func (l *loader) parallel(workers, n int, fn func(*http.Client, int) error) error {
	var next atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := l.newClient()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := fn(c, i); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := firstErr.Load().(error); ok {
		return err
	}
	return nil
}

func nodeJSON(i int) []byte {
	name := fmt.Sprintf("load-node-%d", i)
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name, "labels": map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)}},
		"spec": map[string]any{"podCIDR": fmt.Sprintf("10.%d.%d.0/24", 100+i/256%100, i%256)},
		"status": map[string]any{
			"capacity":    map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"},
			"allocatable": map[string]string{"cpu": "7800m", "memory": "31Gi", "pods": "110", "ephemeral-storage": "95Gi"},
			"conditions": []map[string]any{{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
				"lastHeartbeatTime": "2026-11-01T00:00:00Z", "lastTransitionTime": "2026-11-01T00:00:00Z"}},
			"addresses": []map[string]string{{"type": "InternalIP", "address": fmt.Sprintf("192.168.%d.%d", i/256%256, i%256)}, {"type": "Hostname", "address": name}},
			"nodeInfo": map[string]string{"machineID": "m", "systemUUID": "u", "bootID": "b", "kernelVersion": "6.1.0", "osImage": "Debian GNU/Linux 12",
				"containerRuntimeVersion": "containerd://1.6.20", "kubeletVersion": "v1.32.0-orkit", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"},
		},
	})
	return b
}

func podJSON(i, nodes int) []byte {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": fmt.Sprintf("load-pod-%d", i), "labels": map[string]string{"app": fmt.Sprintf("app-%d", i%50), "pod-template-hash": "5d8f7c9b6"}},
		"spec": map[string]any{
			"nodeName": fmt.Sprintf("load-node-%d", i%max(nodes, 1)),
			"containers": []map[string]any{{"name": "app", "image": "orkit.local/hello:v1",
				"ports":     []map[string]any{{"containerPort": 8080, "protocol": "TCP"}},
				"resources": map[string]any{"requests": map[string]string{"cpu": "100m", "memory": "128Mi"}, "limits": map[string]string{"cpu": "200m", "memory": "256Mi"}},
				"env":       []map[string]string{{"name": "MODE", "value": "load"}},
			}},
		},
	})
	return b
}

// unboundPodJSON is a pod as the scheduler's end-to-end benchmark creates
// it: one container with requests, no node.
func unboundPodJSON(name string) []byte {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "labels": map[string]string{"app": "sim"}},
		"spec": map[string]any{
			"terminationGracePeriodSeconds": 0,
			"containers": []map[string]any{{"name": "c", "image": "orkit.local/pause:v1",
				"resources": map[string]any{"requests": map[string]string{"cpu": "100m", "memory": "128Mi"}}}},
		},
	})
	return b
}

// pct returns the p-th percentile of ds (100 = max).
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := len(s) * p / 100
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i].Round(10 * time.Microsecond)
}

package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/orkit/orkit/store"
)

// startTimeout bounds one Start or Restart (the store's file lock, the
// listener and the caches' first sync).
const startTimeout = 60 * time.Second

// Options tunes a Cluster. The zero value is a control plane (API server
// and store, no scheduler or controllers) with the default watch history,
// logging warnings to stderr.
type Options struct {
	// Scheduler runs orkit's scheduler (as system:kube-scheduler) beside
	// the API server, so pods get bound to the Nodes clients register.
	Scheduler bool
	// Controllers runs orkit's standard controllers (controller/standard,
	// as system:kube-controller-manager) beside the API server: garbage
	// collection, namespace deletion, the workload controllers.
	Controllers bool
	// ServiceIPs puts orkit's Service IP and node-port allocator
	// (apiserver.ServiceAllocator, as the minicluster runs it) at the end
	// of the admission chain, so Services get a clusterIP as on
	// Kubernetes (tools such as `helm install --wait` wait for one).
	ServiceIPs bool
	// WatchHistory is how many events per resource the API server's watch
	// caches keep for resuming watches (older resourceVersions get 410);
	// 0 means the control plane's default.
	WatchHistory int
	// Logger receives the control plane's logs; nil means warnings and
	// errors on stderr.
	Logger *slog.Logger
}

// Cluster is an in-process orkit control plane serving on a loopback
// address, with its data in a test's temporary directory. It is stopped
// when the test ends. Its methods are safe for concurrent use.
type Cluster struct {
	opts    Options
	dataDir string
	addr    string

	mu      sync.Mutex
	cancel  context.CancelFunc // nil while stopped
	run     *running
	restCfg *rest.Config
}

// Start starts a control plane for t, with its data in t's temporary
// directory, and waits until it serves. It is stopped when the test ends.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := New(filepath.Join(t.TempDir(), "cp"), opts)
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("cluster: stop: %v", err)
		}
	})
	return c
}

// New starts a control plane with its data in dataDir on a free loopback
// port and waits until it serves; the caller stops it (Stop). Programs
// such as the load generator use it; tests use Start.
func New(dataDir string, opts Options) (*Cluster, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pick a port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("pick a port: %w", err)
	}
	c := &Cluster{opts: opts, dataDir: dataDir, addr: addr}
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

// start starts the control plane, retrying while the previous one still
// holds the store's lock or the address.
func (c *Cluster) start() error {
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithCancel(context.Background())
		run, err := startControlPlane(ctx, c.dataDir, c.addr, c.opts)
		if err == nil {
			cfg, err := clientcmd.BuildConfigFromFlags("", run.kubeconfig)
			if err != nil {
				cancel()
				return fmt.Errorf("read the admin kubeconfig: %w", err)
			}
			// The tests' writers are not to be throttled by client-go's
			// default 5 requests per second.
			cfg.QPS, cfg.Burst = 5000, 10000
			c.mu.Lock()
			c.cancel, c.run, c.restCfg = cancel, run, cfg
			c.mu.Unlock()
			return nil
		}
		cancel()
		if time.Now().After(deadline) {
			return fmt.Errorf("start the control plane on %s: %w", c.addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// RESTConfig returns a copy of the admin client configuration (a
// system:masters client certificate), for the caller to change freely.
func (c *Cluster) RESTConfig() *rest.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return rest.CopyConfig(c.restCfg)
}

// Kubeconfig returns the path of the admin kubeconfig (a system:masters
// client certificate), for child processes and kubectl.
func (c *Cluster) Kubeconfig() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.run == nil {
		return ""
	}
	return c.run.kubeconfig
}

// Store returns the running control plane's store (nil while stopped).
func (c *Cluster) Store() store.Interface {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.run == nil {
		return nil
	}
	return c.run.store
}

// Stop stops the control plane and waits until its store is closed. The
// data directory stays; stopping a stopped cluster does nothing.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	cancel, run := c.cancel, c.run
	c.cancel, c.run = nil, nil
	c.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	deadline := time.Now().Add(startTimeout)
	select {
	case <-run.done:
	case <-time.After(startTimeout):
		return fmt.Errorf("the scheduler or controllers still run %v after stop", startTimeout)
	}
	for {
		_, err := run.store.Revision(context.Background())
		if errors.Is(err, store.ErrClosed) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the store is still open %v after stop (last answer: %v)", startTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Restart stops the control plane and starts it again on the same data
// directory and address: clients keep their configuration.
func (c *Cluster) Restart() error {
	if err := c.Stop(); err != nil {
		return err
	}
	return c.start()
}

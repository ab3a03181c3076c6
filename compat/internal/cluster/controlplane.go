package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/garbagecollector"
	"github.com/orkit/orkit/controller/standard"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/store"
)

// running is what the harness needs of a started control plane.
type running struct {
	// kubeconfig is the path of a system:masters kubeconfig.
	kubeconfig string
	// store is the control plane's store (tests compact it).
	store store.Interface
	// done is closed when the components the harness started beside the
	// API server (scheduler, controllers) have returned.
	done chan struct{}
}

// startControlPlane starts orkit's control plane on dataDir, serving on
// listen, until ctx is done, and beside it orkit's scheduler and standard
// controllers when opts say so. It is the only place the harness calls
// into orkit's public packages.
func startControlPlane(ctx context.Context, dataDir, listen string, opts Options) (*running, error) {
	cfg := controlplane.Config{DataDir: dataDir, Listen: listen, WatchHistory: opts.WatchHistory, Logger: opts.Logger}
	if opts.ServiceIPs {
		cfg.Admission = withServiceAllocator
	}
	cp, err := controlplane.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	run := &running{kubeconfig: cp.AdminKubeconfig, store: cp.Store, done: make(chan struct{})}
	var components []func(context.Context) error
	if opts.Scheduler {
		s, err := newScheduler(cp, opts.Logger)
		if err != nil {
			return nil, err
		}
		components = append(components, s.Run)
	}
	if opts.Controllers {
		m, err := newControllerManager(cp, opts.Logger)
		if err != nil {
			return nil, err
		}
		components = append(components, m.Run)
	}
	var wg sync.WaitGroup
	for _, component := range components {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := component(ctx); err != nil && !errors.Is(err, context.Canceled) {
				opts.Logger.Error("control-plane component stopped", "err", err)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(run.done)
	}()
	return run, nil
}

// withServiceAllocator is the default admission chain with the Service
// IP and node-port allocator last (it reserves addresses when it admits),
// running until the control plane stops (ctx).
func withServiceAllocator(ctx context.Context, srv *apiserver.Server) (*admission.Chain, error) {
	chain := controlplane.DefaultAdmission(srv)
	alloc, err := apiserver.NewServiceAllocator(srv, apiserver.ServiceAllocatorConfig{})
	if err != nil {
		return nil, fmt.Errorf("service allocator: %w", err)
	}
	if err := alloc.Start(ctx); err != nil {
		return nil, fmt.Errorf("service allocator: %w", err)
	}
	chain.Validators = append(chain.Validators, alloc)
	return chain, nil
}

// componentClient makes a client with the credentials of user (a
// kubeconfig written next to the admin's, named file).
func componentClient(cp *controlplane.ControlPlane, user, file string) (*client.Client, error) {
	path := filepath.Join(filepath.Dir(cp.AdminKubeconfig), file)
	if err := cp.WriteKubeconfig(path, user); err != nil {
		return nil, fmt.Errorf("%s kubeconfig: %w", user, err)
	}
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		return nil, fmt.Errorf("%s kubeconfig: %w", user, err)
	}
	cfg.QPS, cfg.Burst = 5000, 10000
	cl, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", user, err)
	}
	return cl, nil
}

// newScheduler makes orkit's scheduler as system:kube-scheduler.
func newScheduler(cp *controlplane.ControlPlane, log *slog.Logger) (*scheduler.Scheduler, error) {
	cl, err := componentClient(cp, "system:kube-scheduler", "scheduler.kubeconfig")
	if err != nil {
		return nil, err
	}
	return scheduler.New(scheduler.Config{Client: cl, Logger: log})
}

// newControllerManager makes a controller manager with orkit's standard
// controllers as system:kube-controller-manager. Discovery is asked
// again every second, so the garbage collector follows CRDs the tests
// create at once.
func newControllerManager(cp *controlplane.ControlPlane, log *slog.Logger) (*controller.Manager, error) {
	cl, err := componentClient(cp, "system:kube-controller-manager", "controller-manager.kubeconfig")
	if err != nil {
		return nil, err
	}
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl, Logger: log})
	if err != nil {
		return nil, err
	}
	if _, err := standard.Add(m, standard.Config{GarbageCollector: garbagecollector.Config{DiscoveryPeriod: time.Second}}); err != nil {
		return nil, err
	}
	return m, nil
}

package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/orkit/orkit/client"
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
	// API server (the scheduler) have returned.
	done chan struct{}
}

// startControlPlane starts orkit's control plane on dataDir, serving on
// listen, until ctx is done, and orkit's scheduler beside it when
// opts.Scheduler says so. It is the only place the harness calls into
// orkit's public packages.
func startControlPlane(ctx context.Context, dataDir, listen string, opts Options) (*running, error) {
	cp, err := controlplane.Start(ctx, controlplane.Config{
		DataDir: dataDir, Listen: listen, WatchHistory: opts.WatchHistory, Logger: opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	run := &running{kubeconfig: cp.AdminKubeconfig, store: cp.Store, done: make(chan struct{})}
	if !opts.Scheduler {
		close(run.done)
		return run, nil
	}
	s, err := newScheduler(cp, opts.Logger)
	if err != nil {
		return nil, err
	}
	go func() {
		defer close(run.done)
		if err := s.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			opts.Logger.Error("scheduler stopped", "err", err)
		}
	}()
	return run, nil
}

// newScheduler makes orkit's scheduler with the credentials of
// system:kube-scheduler (a kubeconfig next to the admin's).
func newScheduler(cp *controlplane.ControlPlane, log *slog.Logger) (*scheduler.Scheduler, error) {
	path := filepath.Join(filepath.Dir(cp.AdminKubeconfig), "scheduler.kubeconfig")
	if err := cp.WriteKubeconfig(path, "system:kube-scheduler"); err != nil {
		return nil, fmt.Errorf("scheduler kubeconfig: %w", err)
	}
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		return nil, fmt.Errorf("scheduler kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 5000, 10000
	cl, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("scheduler client: %w", err)
	}
	return scheduler.New(scheduler.Config{Client: cl, Logger: log})
}

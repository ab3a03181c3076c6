package cluster

import (
	"context"
	"log/slog"

	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/store"
)

// running is what the harness needs of a started control plane.
type running struct {
	// kubeconfig is the path of a system:masters kubeconfig.
	kubeconfig string
	// store is the control plane's store (tests compact it).
	store store.Interface
}

// startControlPlane starts orkit's control plane on dataDir, serving on
// listen, until ctx is done. It is the only place the harness calls into
// orkit's public control-plane package.
func startControlPlane(ctx context.Context, dataDir, listen string, watchHistory int, log *slog.Logger) (*running, error) {
	cp, err := controlplane.Start(ctx, controlplane.Config{
		DataDir: dataDir, Listen: listen, WatchHistory: watchHistory, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return &running{kubeconfig: cp.AdminKubeconfig, store: cp.Store}, nil
}

package garbagecollector

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
)

// TestAsControllerManager runs the collector as
// system:kube-controller-manager against the full control plane (RBAC,
// admission) and checks it collects a dependent.
func TestAsControllerManager(t *testing.T) {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	gc := runGC(t, cl.Client(t, cl.ControllerKubeconfig))
	eventually(t, "resources discovered", func() bool { return len(gc.Resources()) > 10 })
	owner := createCM(t, admin, "default", "owner")
	createCM(t, admin, "default", "dependent", ownerRef(owner, false))
	require.NoError(t, client.For[core.ConfigMap](admin, "default").Delete(context.Background(), "owner", nil))
	eventually(t, "dependent collected", cmGone(admin, "default", "dependent"))
}

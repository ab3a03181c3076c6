package garbagecollector

import (
	"context"
	"os"
	"os/exec"
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

// TestKubectlCascade deletes owners with the real kubectl and each
// --cascade mode (background, foreground, orphan).
func TestKubectlCascade(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required with CI=true: %v", err)
		}
		t.Skip("kubectl not installed")
	}
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	runGC(t, cl.Client(t, cl.ControllerKubeconfig))
	for _, mode := range []string{"background", "foreground", "orphan"} {
		t.Run(mode, func(t *testing.T) {
			ns := newNamespace(t, admin, "kubectl-"+mode)
			owner := createCM(t, admin, ns, "owner")
			createCM(t, admin, ns, "dependent", ownerRef(owner, true))
			out, err := exec.Command(kubectl, "--kubeconfig", cl.AdminKubeconfig, "-n", ns, "delete", "configmap", "owner",
				"--cascade="+mode, "--wait=true", "--timeout=20s").CombinedOutput()
			require.NoError(t, err, "kubectl: %s", out)
			eventually(t, "owner gone", cmGone(admin, ns, "owner"))
			if mode != "orphan" {
				eventually(t, "dependent collected", cmGone(admin, ns, "dependent"))
				return
			}
			dep, err := client.For[core.ConfigMap](admin, ns).Get(context.Background(), "dependent")
			require.NoError(t, err)
			require.Empty(t, dep.OwnerReferences)
		})
	}
}

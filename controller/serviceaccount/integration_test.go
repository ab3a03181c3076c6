package serviceaccount_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/serviceaccount"
	"github.com/orkit/orkit/internal/testnode"
)

// TestDefaultServiceAccounts: existing and new namespaces get "default",
// a deleted one comes back, and a pod created afterwards runs as it.
func TestDefaultServiceAccounts(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	sc, err := serviceaccount.New(m, serviceaccount.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(sc))
	testnode.RunManager(t, m)
	ctx := context.Background()
	has := func(ns string) func() bool {
		return func() bool {
			_, err := client.For[core.ServiceAccount](c, ns).Get(ctx, serviceaccount.DefaultName)
			return err == nil
		}
	}
	testnode.Eventually(t, 30*time.Second, has("default"), "default/default")
	testnode.Eventually(t, 30*time.Second, has("kube-system"), "kube-system/default")

	_, err = client.For[core.Namespace](c, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, has("team"), "team/default")
	require.NoError(t, client.For[core.ServiceAccount](c, "team").Delete(ctx, serviceaccount.DefaultName, nil))
	testnode.Eventually(t, 30*time.Second, has("team"), "team/default recreated")

	pod, err := client.For[core.Pod](c, "team").Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p"},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}})
	require.NoError(t, err)
	require.Equal(t, "default", pod.Spec.ServiceAccountName, "the ServiceAccount admission plugin names the account")
}

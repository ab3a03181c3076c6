package servicelb_test

import (
	"context"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/servicelb"
	"github.com/orkit/orkit/internal/testnode"
)

func TestLoadBalancerServices(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, c, testnode.Config{Nodes: 1})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	lb, err := servicelb.NewLoopback(netip.MustParsePrefix("127.0.1.0/31")) // two addresses
	require.NoError(t, err)
	sc, err := servicelb.New(m, servicelb.Config{Provider: lb, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(sc))
	testnode.RunManager(t, m)
	ctx := context.Background()
	svcs := client.For[core.Service](c, "default")
	create := func(name string) {
		_, err := svcs.Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"}, Spec: core.ServiceSpec{
			Type: core.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name}, Ports: []core.ServicePort{{Port: 80}}}})
		require.NoError(t, err)
	}
	ingress := func(name string) string {
		s, err := svcs.Get(ctx, name)
		if err != nil || len(s.Status.LoadBalancer.Ingress) == 0 {
			return ""
		}
		return s.Status.LoadBalancer.Ingress[0].IP
	}
	create("a")
	create("b")
	testnode.Eventually(t, 30*time.Second, func() bool { return ingress("a") != "" && ingress("b") != "" }, "a and b have addresses")
	require.NotEqual(t, ingress("a"), ingress("b"))
	s, err := svcs.Get(ctx, "a")
	require.NoError(t, err)
	require.True(t, slices.Contains(s.Finalizers, servicelb.CleanupFinalizer))

	create("c") // the pool is exhausted: no address until one is freed
	aIP := ingress("a")
	_, err = svcs.Patch(ctx, "a", client.MergePatchType, []byte(`{"spec":{"type":"ClusterIP","externalTrafficPolicy":null,"allocateLoadBalancerNodePorts":null}}`))
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		s, err := svcs.Get(ctx, "a")
		return err == nil && len(s.Status.LoadBalancer.Ingress) == 0 && !slices.Contains(s.Finalizers, servicelb.CleanupFinalizer)
	}, "a no longer a load balancer")
	testnode.Eventually(t, 30*time.Second, func() bool { return ingress("c") == aIP }, "c gets a's freed address")

	require.NoError(t, svcs.Delete(ctx, "b", nil))
	testnode.Eventually(t, 30*time.Second, func() bool { _, err := svcs.Get(ctx, "b"); return apierrors.IsNotFound(err) }, "b deleted after cleanup")
}

package endpoints_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/endpoints"
	"github.com/orkit/orkit/internal/testnode"
)

const wait = 30 * time.Second

func TestEndpointsFollowPods(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	agent := testnode.RunAgent(t, c, testnode.Config{Nodes: 2, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ec, err := endpoints.New(m, endpoints.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(ec))
	testnode.RunManager(t, m)
	ctx := context.Background()

	// Endpoints with no Service are not this controller's: written first,
	// they are still there after everything below
	eps := client.For[core.Endpoints](c, "default")
	_, err = eps.Create(ctx, &core.Endpoints{ObjectMeta: meta.ObjectMeta{Name: "static", Namespace: "default"},
		Subsets: []core.EndpointSubset{{Addresses: []core.EndpointAddress{{IP: "10.0.0.9"}}, Ports: []core.EndpointPort{{Port: 80}}}}})
	require.NoError(t, err)

	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}, Spec: core.ServiceSpec{
		Selector: map[string]string{"app": "web"}, Ports: []core.ServicePort{{Name: "http", Port: 80, TargetPort: meta.FromString("http")}}}}
	_, err = client.For[core.Service](c, "default").Create(ctx, svc)
	require.NoError(t, err)
	pods := client.For[core.Pod](c, "default")
	for _, n := range []string{"web-1", "web-2", "web-3"} {
		_, err := pods.Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: n, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1",
				Ports: []core.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}})
		require.NoError(t, err)
	}
	counts := func() (ready, notReady int, port int32) {
		ep, err := eps.Get(ctx, "web")
		if err != nil {
			return -1, -1, 0
		}
		for _, s := range ep.Subsets {
			ready += len(s.Addresses)
			notReady += len(s.NotReadyAddresses)
			if len(s.Ports) > 0 {
				port = s.Ports[0].Port
			}
		}
		return
	}
	testnode.Eventually(t, wait, func() bool { r, n, p := counts(); return r == 3 && n == 0 && p == 8080 }, "3 ready addresses on 8080")

	agent.SetFate(func(p *core.Pod) testnode.Fate {
		if p.Name == "web-2" {
			return testnode.NotReady
		}
		return testnode.Ready
	})
	testnode.Eventually(t, wait, func() bool { r, n, _ := counts(); return r == 2 && n == 1 }, "web-2 not ready")
	ep, err := eps.Get(ctx, "web")
	require.NoError(t, err)
	nr := ep.Subsets[0].NotReadyAddresses[0]
	assert.Equal(t, "web-2", nr.TargetRef.Name)
	require.NotNil(t, nr.NodeName)
	assert.Contains(t, agent.NodeNames(), *nr.NodeName)

	require.NoError(t, pods.Delete(ctx, "web-1", nil))
	testnode.Eventually(t, wait, func() bool { r, n, _ := counts(); return r == 1 && n == 1 }, "web-1 removed")

	require.NoError(t, client.For[core.Service](c, "default").Delete(ctx, "web", nil))
	testnode.Eventually(t, wait, func() bool { _, err := eps.Get(ctx, "web"); return apierrors.IsNotFound(err) }, "endpoints deleted with the service")
	static, err := eps.Get(ctx, "static")
	require.NoError(t, err, "Endpoints without a Service are left alone")
	assert.Equal(t, "10.0.0.9", static.Subsets[0].Addresses[0].IP)
}

package endpointslice_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/endpointslice"
	"github.com/orkit/orkit/internal/testnode"
)

const wait = 30 * time.Second

// slicesOf lists the slices of a Service managed by managedBy.
func slicesOf(ctx context.Context, c *client.Client, svc, managedBy string) []discovery.EndpointSlice {
	sel := labels.SelectorFromSet(labels.Set{discovery.LabelServiceName: svc, discovery.LabelManagedBy: managedBy}).String()
	l, err := client.For[discovery.EndpointSlice](c, "default").List(ctx, client.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil
	}
	return l.Items
}

// addresses counts the ready and not ready endpoints of slices.
func addresses(ss []discovery.EndpointSlice) (ready, notReady []string) {
	for _, s := range ss {
		for _, e := range s.Endpoints {
			if e.IsReady() {
				ready = append(ready, e.Addresses[0])
			} else {
				notReady = append(notReady, e.Addresses[0])
			}
		}
	}
	slices.Sort(ready)
	slices.Sort(notReady)
	return ready, notReady
}

func TestSlicesFollowPods(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	agent := testnode.RunAgent(t, c, testnode.Config{Nodes: 2, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	sc, err := endpointslice.New(m, endpointslice.Config{MaxEndpointsPerSlice: 2, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(sc))
	testnode.RunManager(t, m)
	ctx := context.Background()

	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"tier": "front"}},
		Spec: core.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []core.ServicePort{{Name: "http", Port: 80, TargetPort: meta.FromString("http")}}}}
	svc, err = client.For[core.Service](c, "default").Create(ctx, svc)
	require.NoError(t, err)
	pods := client.For[core.Pod](c, "default")
	for _, n := range []string{"web-1", "web-2", "web-3", "web-4", "web-5"} {
		_, err := pods.Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: n, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1",
				Ports: []core.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}})
		require.NoError(t, err)
	}
	mine := func() []discovery.EndpointSlice { return slicesOf(ctx, c, "web", endpointslice.ControllerName) }

	// a Service that selects nothing still gets one slice: empty, IPv4, no ports
	_, err = client.For[core.Service](c, "default").Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: "empty", Namespace: "default"},
		Spec: core.ServiceSpec{Selector: map[string]string{"app": "nothing"}, Ports: []core.ServicePort{{Name: "http", Port: 80}}}})
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return len(slicesOf(ctx, c, "empty", endpointslice.ControllerName)) == 1 }, "a placeholder slice")
	placeholder := slicesOf(ctx, c, "empty", endpointslice.ControllerName)[0]
	assert.Empty(t, placeholder.Endpoints)
	assert.Empty(t, placeholder.Ports)
	assert.Equal(t, discovery.AddressTypeIPv4, placeholder.AddressType)
	testnode.Eventually(t, wait, func() bool {
		ss := mine()
		r, _ := addresses(ss)
		return len(ss) == 3 && len(r) == 5
	}, "5 ready endpoints in 3 slices of at most 2")
	for _, s := range mine() {
		assert.Equal(t, discovery.AddressTypeIPv4, s.AddressType)
		assert.Equal(t, "front", s.Labels["tier"], "the Service's labels")
		assert.Equal(t, "web-", s.GenerateName)
		require.Len(t, s.OwnerReferences, 1)
		assert.Equal(t, svc.UID, s.OwnerReferences[0].UID)
		require.Len(t, s.Ports, 1)
		assert.Equal(t, int32(8080), *s.Ports[0].Port)
		assert.Equal(t, "http", *s.Ports[0].Name)
		for _, e := range s.Endpoints {
			assert.Equal(t, "Pod", e.TargetRef.Kind)
			assert.Contains(t, agent.NodeNames(), *e.NodeName)
		}
	}

	agent.SetFate(func(p *core.Pod) testnode.Fate {
		if p.Name == "web-2" {
			return testnode.NotReady
		}
		return testnode.Ready
	})
	testnode.Eventually(t, wait, func() bool { r, n := addresses(mine()); return len(r) == 4 && len(n) == 1 }, "web-2 not ready")

	// an edit of a managed slice is repaired
	// The controller may still be writing this slice, so the edit retries on a
	// conflict against the latest version, as any client would.
	sliceClient := client.For[discovery.EndpointSlice](c, "default")
	edited := mine()[0].Name
	testnode.Eventually(t, wait, func() bool {
		s, err := sliceClient.Get(ctx, edited)
		require.NoError(t, err)
		s.Endpoints = nil
		_, err = sliceClient.Update(ctx, s)
		require.True(t, err == nil || apierrors.IsConflict(err), "update: %v", err)
		return err == nil
	}, "a managed slice edited")
	testnode.Eventually(t, wait, func() bool { r, n := addresses(mine()); return len(r) == 4 && len(n) == 1 }, "edit repaired")

	for _, n := range []string{"web-1", "web-3", "web-4"} {
		require.NoError(t, pods.Delete(ctx, n, &meta.DeleteOptions{GracePeriodSeconds: new(int64)}))
	}
	testnode.Eventually(t, wait, func() bool {
		ss := mine()
		r, n := addresses(ss)
		return len(ss) == 1 && len(r) == 1 && len(n) == 1
	}, "extra slices deleted as pods go")

	require.NoError(t, client.For[core.Service](c, "default").Delete(ctx, "web", nil))
	testnode.Eventually(t, wait, func() bool { return len(mine()) == 0 }, "slices deleted with the service")
}

func TestMirroring(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	mc, err := endpointslice.NewMirroring(m, endpointslice.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(mc))
	testnode.RunManager(t, m)
	ctx := context.Background()

	_, err = client.For[core.Service](c, "default").Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: core.ServiceSpec{Ports: []core.ServicePort{{Name: "pg", Port: 5432}}}})
	require.NoError(t, err)
	eps := client.For[core.Endpoints](c, "default")
	ep, err := eps.Create(ctx, &core.Endpoints{ObjectMeta: meta.ObjectMeta{Name: "db", Namespace: "default", Labels: map[string]string{"team": "data"}},
		Subsets: []core.EndpointSubset{{Addresses: []core.EndpointAddress{{IP: "192.0.2.10"}, {IP: "192.0.2.11"}},
			NotReadyAddresses: []core.EndpointAddress{{IP: "192.0.2.12"}}, Ports: []core.EndpointPort{{Name: "pg", Port: 5432}}}}})
	require.NoError(t, err)
	mirrored := func() []discovery.EndpointSlice {
		return slicesOf(ctx, c, "db", endpointslice.MirroringControllerName)
	}
	testnode.Eventually(t, wait, func() bool {
		r, n := addresses(mirrored())
		return len(r) == 2 && len(n) == 1
	}, "Endpoints mirrored")
	s := mirrored()[0]
	assert.Equal(t, "data", s.Labels["team"])
	assert.Equal(t, "Endpoints", s.OwnerReferences[0].Kind)
	assert.Equal(t, ep.UID, s.OwnerReferences[0].UID)

	ep, err = eps.Get(ctx, "db")
	require.NoError(t, err)
	ep.Labels[discovery.LabelSkipMirror] = "true"
	_, err = eps.Update(ctx, ep)
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return len(mirrored()) == 0 }, "skip-mirror removes the mirrored slices")
}

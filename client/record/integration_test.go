package record_test

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controlplane"
)

// TestAgainstAPIServer writes through the in-process API server: a new
// Event, a repeat patched onto it (the server's merge patch), a container
// Event, and Events about a cluster-scoped object.
func TestAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: filepath.Join(t.TempDir(), "cp"), Listen: addr})
	require.NoError(t, err)
	cfg, err := client.ConfigFromKubeconfig(cp.AdminKubeconfig, "")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	pod, err := client.For[core.Pod](c, "default").Create(ctx, &core.Pod{
		ObjectMeta: testPod("web").ObjectMeta,
		Spec:       core.PodSpec{Containers: []core.Container{{Name: "app", Image: "orkit.local/hello:v1"}}},
	})
	require.NoError(t, err)

	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "kubelet", Host: "node-1"}})
	require.NoError(t, err)
	stop := run(t, w)
	ctr := record.WithFieldPath(pod, record.ContainerFieldPath("app", false))
	w.Event(ctr, core.EventTypeNormal, "Pulled", `Container image "orkit.local/hello:v1" already present on machine`)
	w.Event(ctr, core.EventTypeNormal, "Created", "Created container: app")
	w.Event(pod, core.EventTypeWarning, "FailedMount", "boom")
	w.Event(pod, core.EventTypeWarning, "FailedMount", "boom")
	node := &core.Node{}
	node.Name = "node-1"
	w.WithSource(core.EventSource{Component: "node-controller"}).Event(node, core.EventTypeNormal, "RegisteredNode", "Node node-1 event: Registered Node node-1 in Controller")
	stop() // flushes

	assert.Equal(t, record.Stats{Created: 4, Patched: 1}, w.Stats())
	evs, err := client.For[core.Event](c, "default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.name=web"})
	require.NoError(t, err)
	require.Len(t, evs.Items, 3)
	byReason := map[string]core.Event{}
	for _, ev := range evs.Items {
		byReason[ev.Reason] = ev
	}
	assert.Equal(t, int32(2), byReason["FailedMount"].Count)
	assert.Equal(t, "", byReason["FailedMount"].InvolvedObject.FieldPath)
	assert.Equal(t, "spec.containers{app}", byReason["Pulled"].InvolvedObject.FieldPath)
	assert.Equal(t, pod.UID, byReason["Created"].InvolvedObject.UID)
	assert.Equal(t, "Pod", byReason["Created"].InvolvedObject.Kind)
	assert.Equal(t, "v1", byReason["Created"].InvolvedObject.APIVersion)
	assert.Equal(t, "node-1", byReason["Created"].Source.Host)
	assert.WithinDuration(t, time.Now(), byReason["Created"].LastTimestamp.Time, time.Minute)
	// The names sort in recording order, as Kubernetes' do.
	assert.Less(t, byReason["Pulled"].Name, byReason["Created"].Name)

	nodeEvs, err := client.For[core.Event](c, "default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.kind=Node"})
	require.NoError(t, err)
	require.Len(t, nodeEvs.Items, 1)
	assert.Equal(t, "node-controller", nodeEvs.Items[0].Source.Component)
}

package readme_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/cri/fake"
	"github.com/orkit/orkit/images"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// stopAtEnd stops the control plane when the test ends, before its data
// directory is removed.
func stopAtEnd(t *testing.T, cancel context.CancelFunc, cp *controlplane.ControlPlane) {
	t.Cleanup(func() {
		cancel()
		<-cp.Done()
	})
}

func teamPod(name string, labels map[string]string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
}

// TestAdmissionInControlPlane is README's "Plug in your own logic":
// RequireTeam in a control plane's admission chain refuses a pod without
// a team label and admits one with it.
func TestAdmissionInControlPlane(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir,
		Listen: "127.0.0.1:0",
		Admission: func(_ context.Context, srv *apiserver.Server) (*admission.Chain, error) {
			c := controlplane.DefaultAdmission(srv)
			c.Validators = append(c.Validators, &RequireTeam{admission.Handler{PluginName: "RequireTeam",
				Operations: []admission.Operation{admission.Create}}})
			return c, nil
		}})
	require.NoError(t, err)
	stopAtEnd(t, cancel, cp)
	admin := adminClient(t, cp)
	pods := client.For[core.Pod](admin, "default")
	_, err = pods.Create(ctx, teamPod("anonymous", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `pods must carry a "team" label`)
	_, err = pods.Create(ctx, teamPod("owned", map[string]string{"team": "web"}))
	assert.NoError(t, err)
}

func adminClient(t *testing.T, cp *controlplane.ControlPlane) *client.Client {
	t.Helper()
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	admin, err := client.New(cfg)
	require.NoError(t, err)
	t.Cleanup(admin.CloseIdleConnections)
	return admin
}

// TestEmbed is README's "Embed it": a control plane, a scheduler and a
// simulated node place a pod.
func TestEmbed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	profile := plugins.DefaultProfile("default-scheduler")

	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir, Listen: "127.0.0.1:0"}) // store, PKI, API server
	require.NoError(t, err)
	stopAtEnd(t, cancel, cp) // the goroutines below stop on ctx too
	admin := adminClient(t, cp)
	cfg, err := cp.ClientConfig("system:kube-scheduler") // a component's credentials
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	sched, err := scheduler.New(scheduler.Config{Client: c, Profiles: []framework.Profile{profile}})
	require.NoError(t, err)
	go sched.Run(ctx)
	nodes := kubelet.NewSimPool(admin, kubelet.SimConfig{}) // simulated nodes; admin: a system:masters client
	_, err = nodes.Add("node-0")
	require.NoError(t, err)
	go nodes.Run(ctx)

	pods := client.For[core.Pod](admin, "default")
	_, err = pods.Create(ctx, teamPod("web", nil))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := pods.Get(ctx, "web")
		return err == nil && p.Spec.NodeName == "node-0"
	}, time.Minute, 50*time.Millisecond, "the pod is scheduled to node-0")
}

// TestImages is README's image build: the bundled images land in a
// runtime (the fake one here; a node's cri/containerd Runtime in a
// cluster).
func TestImages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	ctx := context.Background()
	rt, err := fake.New()
	require.NoError(t, err)
	b, err := images.New("", "") // the go command runs in your module
	require.NoError(t, err)
	_, err = b.BuildAndImport(ctx, rt, images.Bundled()...) // rt: the node's cri/containerd Runtime
	require.NoError(t, err)
}

package kubelet

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/cri/fake"
)

func quietLogger() *slog.Logger {
	if os.Getenv("KUBELET_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testCluster is an in-process API server with an admin client.
type testCluster struct {
	cp    *controlplane.ControlPlane
	admin *client.Client
	dir   string
}

func startCluster(t testing.TB) *testCluster {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	dir := t.TempDir()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: filepath.Join(dir, "cp"), Listen: addr, Logger: quietLogger()})
	require.NoError(t, err)
	cfg, err := client.ConfigFromKubeconfig(cp.AdminKubeconfig, "")
	require.NoError(t, err)
	cfg.QPS = -1
	c, err := client.New(cfg, client.WithLogger(quietLogger()))
	require.NoError(t, err)
	return &testCluster{cp: cp, admin: c, dir: dir}
}

// nodeClient returns a client with the identity system:node:<name>.
func (tc *testCluster) nodeClient(t testing.TB, name string) *client.Client {
	t.Helper()
	path := filepath.Join(tc.dir, name+".kubeconfig")
	require.NoError(t, tc.cp.WriteKubeconfig(path, "system:node:"+name, "system:nodes"))
	cfg, err := client.ConfigFromKubeconfig(path, "")
	require.NoError(t, err)
	cfg.QPS = -1
	c, err := client.New(cfg, client.WithLogger(quietLogger()))
	require.NoError(t, err)
	return c
}

// startFakeKubelet runs a kubelet over cri/fake on node name.
func (tc *testCluster) startFakeKubelet(t testing.TB, name string, mutate func(*Config)) (*Kubelet, *fake.Runtime) {
	t.Helper()
	rt, err := fake.New(fake.WithImages("orkit.local/hello:v1", "orkit.local/pause:v1"))
	require.NoError(t, err)
	cfg := Config{NodeName: name, Client: tc.nodeClient(t, name), Runtime: rt, Logger: quietLogger(),
		CrashLoopBackOff: 50 * time.Millisecond, ImagePullBackOff: 50 * time.Millisecond, MaxBackOff: 400 * time.Millisecond,
		ResyncInterval: 2 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	rt = cfg.Runtime.(*fake.Runtime)
	k, err := New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = k.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		rt.Close()
	})
	return k, rt
}

func pods(c *client.Client, ns string) *client.Resource[core.Pod, *core.Pod] {
	return client.For[core.Pod](c, ns)
}

func simplePod(name, node string) *core.Pod {
	grace := int64(2)
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: core.PodSpec{NodeName: node, TerminationGracePeriodSeconds: &grace,
			Containers: []core.Container{{Name: "app", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent}}},
	}
}

// waitPod polls the pod until cond holds or the deadline passes.
func waitPod(t testing.TB, c *client.Client, ns, name string, d time.Duration, what string, cond func(*core.Pod) bool) *core.Pod {
	t.Helper()
	deadline := time.Now().Add(d)
	var last *core.Pod
	for time.Now().Before(deadline) {
		p, err := pods(c, ns).Get(context.Background(), name)
		if err == nil {
			last = p
			if cond(p) {
				return p
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	if last != nil {
		t.Fatalf("pod %s/%s: %s not reached in %s; status: %+v", ns, name, what, d, last.Status)
	}
	t.Fatalf("pod %s/%s: %s not reached in %s (pod not found)", ns, name, what, d)
	return nil
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s not reached in %s", what, d)
}

func running(p *core.Pod) bool { return p.Status.Phase == core.PodRunning }

func isReady(p *core.Pod) bool { return core.IsPodReady(p) }

// startClusterlessClient returns a client for a server that is never
// contacted (configuration tests).
func startClusterlessClient(t testing.TB) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{Host: "https://127.0.0.1:1"})
	require.NoError(t, err)
	return c
}

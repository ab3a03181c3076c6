package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer collects the progress lines from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func requireRealNode(t *testing.T) {
	t.Helper()
	err := checkNodePrerequisites()
	if err == nil {
		_, err = exec.LookPath("kubectl")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skipf("prerequisite missing: %v", err)
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// TestDemo runs the minicluster in-process with a real node (private
// containerd, CNI bridge) and drives the seeds' scenario with the real
// kubectl; then it stops the cluster, checks nothing is left on the host,
// starts it again on the same data directory and finds its state.
func TestDemo(t *testing.T) {
	requireRealNode(t)
	dir := t.TempDir()
	out := &syncBuffer{}
	opts := options{DataDir: dir, Listen: freeAddr(t), Nodes: 1, SimNodes: 2, SimNodeTaint: true, Out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, opts)
	require.NoError(t, err, out.String())
	demoErr := runDemo(ctx, c)
	c.Close()
	t.Log("\n" + out.String())
	require.NoError(t, demoErr)
	for _, want := range []string{"API server ready", "scheduler started", "node-1 started", "ReplicaSet web-",
		"scheduled to node-1", "IP 10.244.1.", "started: containers running and ready", "demo: every step held", "containerd stopped"} {
		assert.Contains(t, out.String(), want)
	}
	links, err := exec.Command("ip", "-o", "link", "show").Output()
	require.NoError(t, err)
	assert.NotContains(t, string(links), "orkit1", "the bridge is removed on stop")

	// Started again on the same directory, the cluster resumes: the
	// namespaces and nodes it had are there.
	out2 := &syncBuffer{}
	opts.Out, opts.SimNodes = out2, 0
	c2, err := startCluster(ctx, opts)
	require.NoError(t, err, out2.String())
	defer c2.Close()
	kc := c2.cp.AdminKubeconfig
	got, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "get", "nodes", "-o", "name").CombinedOutput()
	require.NoError(t, err, string(got))
	assert.Contains(t, string(got), "node/node-1")
	assert.Contains(t, string(got), "node/sim-node-0", "state from the first run is still there")
	assert.True(t, strings.Contains(out2.String(), "API server ready"))

	// Services get a cluster IP from the allocator, and the proxy runs.
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "create", "service", "clusterip", "svc", "--tcp=80:8080").CombinedOutput()
	require.NoError(t, err, string(got))
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "get", "service", "svc", "-o", "jsonpath={.spec.clusterIP}").CombinedOutput()
	require.NoError(t, err, string(got))
	assert.True(t, strings.HasPrefix(string(got), "10."), "cluster IP from 10.96.0.0/12: %q", got)
	clusterIP := string(got)
	assert.Contains(t, out2.String(), "service proxy started")

	// A pod resolves the Service's name through cluster DNS (via the proxy).
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "run", "dnsclient", "--image=orkit.local/hello:v1",
		"--restart=Never", "--", "resolve", "svc.default.svc.cluster.local").CombinedOutput()
	require.NoError(t, err, string(got))
	deadline := time.Now().Add(2 * time.Minute)
	var logs []byte
	for time.Now().Before(deadline) {
		phase, _ := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "get", "pod", "dnsclient", "-o", "jsonpath={.status.phase}").Output()
		if string(phase) == "Succeeded" || string(phase) == "Failed" {
			logs, _ = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "logs", "dnsclient").CombinedOutput()
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	assert.Contains(t, string(logs), clusterIP, "the pod resolved the Service through cluster DNS")

	// kubectl exec reaches a pod's container through the API server and its kubelet.
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "run", "execbox", "--image=orkit.local/hello:v1").CombinedOutput()
	require.NoError(t, err, string(got))
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "wait", "--for=condition=Ready", "pod/execbox", "--timeout=2m").CombinedOutput()
	require.NoError(t, err, string(got))
	// Standard output only: client-go may log to stderr meanwhile.
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "exec", "execbox", "--", "/hello", "wget", "http://localhost:8080/").Output()
	require.NoError(t, err, string(got))
	assert.Equal(t, "execbox\n", string(got), "kubectl exec prints the pod's hostname")

	// The kubernetes Service: its variables are in every container, its
	// name resolves through cluster DNS, and it leads to the API server,
	// which a pod reaches as rest.InClusterConfig does (the cluster CA and
	// the pod's service-account token): the token authenticates, and
	// RBAC grants the default service account nothing (403).
	got, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "exec", "execbox", "--", "/hello", "env").CombinedOutput()
	require.NoError(t, err, string(got))
	for _, want := range []string{"KUBERNETES_SERVICE_HOST=10.96.0.1\n", "KUBERNETES_SERVICE_PORT=443\n",
		"KUBERNETES_PORT=tcp://10.96.0.1:443\n", "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1\n", "SVC_SERVICE_HOST=" + clusterIP + "\n"} {
		assert.Contains(t, string(got), want)
	}
	sa := "/var/run/secrets/kubernetes.io/serviceaccount/"
	got, _ = exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "exec", "execbox", "--", "/hello", "wget",
		"--ca", sa+"ca.crt", "--token-file", sa+"token", "https://kubernetes.default.svc/api/v1/namespaces/default/pods").CombinedOutput()
	assert.Contains(t, string(got), `pods is forbidden: User \"system:serviceaccount:default:default\" cannot list resource \"pods\"`)
	assert.Contains(t, string(got), "status 403 Forbidden")
}

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// netpolPodsYAML: a server and a client on node-1 (one bridge, so their
// traffic is switched, not routed) and, in namespace "open", a pod on
// node-2 (another bridge: routed through the host).
const netpolPodsYAML = `
apiVersion: v1
kind: Namespace
metadata: {name: open, labels: {team: open}}
---
apiVersion: v1
kind: Pod
metadata: {name: server, namespace: default, labels: {app: server}}
spec:
  nodeName: node-1
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: orkit.local/hello:v1
    ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: default, labels: {app: client}}
spec:
  nodeName: node-1
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: orkit.local/hello:v1}]
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: open, labels: {app: other}}
spec:
  nodeName: node-2
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: orkit.local/hello:v1}]
`

const denyIngressYAML = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-ingress, namespace: default}
spec:
  podSelector: {}
`

// allowYAML lets the client in by label (on the named port) and the pod
// of namespace "open" by namespace and pod label.
const allowYAML = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-client, namespace: default}
spec:
  podSelector: {matchLabels: {app: server}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: client}}}]
    ports: [{port: http}]
`

const allowOpenYAML = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-open, namespace: default}
spec:
  podSelector: {matchLabels: {app: server}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {team: open}}, podSelector: {matchLabels: {app: other}}}]
    ports: [{protocol: TCP, port: 8000, endPort: 8080}]
`

// egressYAML lets the client reach the pod network except the server.
const egressYAML = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: client-egress, namespace: default}
spec:
  podSelector: {matchLabels: {app: client}}
  policyTypes: [Egress]
  egress:
  - to: [{ipBlock: {cidr: 10.244.0.0/16, except: [SERVER/32]}}]
`

// TestKubectlNetworkPolicy applies NetworkPolicies with the real kubectl
// and checks them between real pods on two real nodes: a default-deny
// ingress policy stops a connection between two pods on one bridge and
// one from another node, a policy allowing the client by label (named
// port) lets it through, one allowing by namespace and pod label (port
// range) lets the other in, an egress policy with an ipBlock except
// stops the client reaching the server while it still reaches the other,
// and deleting it restores the connection.
func TestKubectlNetworkPolicy(t *testing.T) {
	requireRealNode(t)
	dir := t.TempDir()
	out := &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Nodes: 2, Out: out})
	require.NoError(t, err, out.String())
	defer func() {
		c.Close()
		if t.Failed() {
			t.Log("\n" + out.String())
		}
	}()
	kc := c.cp.AdminKubeconfig
	kubectl := func(stdin string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kc}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	must := func(stdin string, args ...string) string {
		t.Helper()
		got, err := kubectl(stdin, args...)
		require.NoError(t, err, "kubectl %v: %s", args, got)
		return got
	}
	assert.Contains(t, out.String(), "network policy enforcer started")

	must(netpolPodsYAML, "apply", "-f", "-")
	must("", "wait", "--for=condition=Ready", "pod/server", "pod/client", "--timeout=3m")
	must("", "wait", "-n", "open", "--for=condition=Ready", "pod/other", "--timeout=3m")
	serverIP := must("", "get", "pod", "server", "-o", "jsonpath={.status.podIP}")
	otherIP := must("", "get", "pod", "-n", "open", "other", "-o", "jsonpath={.status.podIP}")
	require.True(t, strings.HasPrefix(serverIP, "10.244.1."), serverIP)
	require.True(t, strings.HasPrefix(otherIP, "10.244.2."), otherIP)

	// connects reports whether pod (ns/name) gets an answer from ip:8080.
	connects := func(ns, pod, ip string) bool {
		_, err := kubectl("", "exec", "-n", ns, pod, "--", "/hello", "wget", "--timeout", "2s", "http://"+ip+":8080/")
		return err == nil
	}
	// settles waits until the connection's outcome is want (rules apply
	// asynchronously after kubectl returns).
	settles := func(what, ns, pod, ip string, want bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for connects(ns, pod, ip) != want {
			require.True(t, time.Now().Before(deadline), "%s: still %v after a minute", what, !want)
		}
	}
	settles("no policy: client reaches server", "default", "client", serverIP, true)
	settles("no policy: other reaches server", "open", "other", serverIP, true)

	must(denyIngressYAML, "apply", "-f", "-")
	settles("default deny: client (same bridge) is stopped", "default", "client", serverIP, false)
	settles("default deny: other (other node) is stopped", "open", "other", serverIP, false)
	assert.Regexp(t, `default-deny-ingress\s+<none>\s+`, must("", "get", "netpol"))
	desc := must("", "describe", "networkpolicy", "default-deny-ingress")
	assert.Contains(t, desc, "Allowing ingress traffic:")
	assert.Contains(t, desc, "<none> (Selected pods are isolated for ingress connectivity)")

	must(allowYAML, "apply", "-f", "-")
	settles("allowed by pod label: client reaches server", "default", "client", serverIP, true)
	assert.False(t, connects("open", "other", serverIP), "other is still stopped")
	assert.Regexp(t, `allow-client\s+app=server\s+`, must("", "get", "netpol"))

	must(allowOpenYAML, "apply", "-f", "-")
	settles("allowed by namespace and pod label: other reaches server", "open", "other", serverIP, true)

	must(strings.ReplaceAll(egressYAML, "SERVER", serverIP), "apply", "-f", "-")
	settles("egress except: client no longer reaches server", "default", "client", serverIP, false)
	assert.True(t, connects("default", "client", otherIP), "egress to the rest of the pod network is allowed")
	assert.True(t, connects("open", "other", serverIP), "the server still accepts the other")

	must("", "delete", "networkpolicy", "client-egress")
	settles("egress policy deleted: client reaches server again", "default", "client", serverIP, true)

	// Bad input gets kube's error and is not stored.
	bad := strings.ReplaceAll(egressYAML, "SERVER/32", "10.245.0.0/24")
	got, err := kubectl(bad, "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, got, "spec.egress[0].to[0].ipBlock.except[0]: Invalid value: \"10.245.0.0/24\": must be a strict subset of `cidr`")
	_, err = kubectl("", "get", "netpol", "client-egress")
	assert.Error(t, err, "the invalid policy was not stored")

	require.NoError(t, exec.Command("nft", "list", "table", "ip", "orkit-netpol").Run(), "the rules are in place")
	c.Close()
	assert.Error(t, exec.Command("nft", "list", "table", "ip", "orkit-netpol").Run(), "a stop removes the table")
}

// TestAgentNetworkPolicy: an agent (real containerd) given the server's
// network-policy kubeconfig enforces NetworkPolicies on its own pods: a
// default-deny policy stops a connection between two of its pods, and a
// policy allowing the client by label lets it through.
func TestAgentNetworkPolicy(t *testing.T) {
	requireRealNode(t)
	bin := buildMinicluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, agentDir := t.TempDir(), t.TempDir()
	srv := startServer(ctx, t, bin, "server-1", dir, nil)
	kc := filepath.Join(dir, "admin.kubeconfig")
	npKubeconfig := filepath.Join(dir, "kubeconfigs", "system-orkit-netpol.kubeconfig")
	require.FileExists(t, npKubeconfig)
	agent := startAgent(t, bin, "agent-np", agentDir, srv.URL(), "--token-file", filepath.Join(dir, "join-token"),
		"--ca-cert-file", filepath.Join(dir, "pki", "ca.crt"), "--runtime", runtimeContainerd, "--bridge", "orkit0",
		"--network-policy-kubeconfig", npKubeconfig, "--network-policy-table", "orkit-test-netpol")
	waitNodeCondition(ctx, t, srv, kc, "agent-np", "True", 90*time.Second)
	must := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kc, "--server", srv.URL()}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "kubectl %v: %s", args, out)
		return string(out)
	}
	pods := strings.ReplaceAll(netpolPodsYAML, "node-1", "agent-np")
	pods = pods[:strings.Index(pods, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: other")] // no second node here
	must(pods, "apply", "-f", "-")
	must("", "wait", "--for=condition=Ready", "pod/server", "pod/client", "--timeout=3m")
	serverIP := must("", "get", "pod", "server", "-o", "jsonpath={.status.podIP}")
	connects := func() bool {
		cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "--server", srv.URL(), "exec", "client", "--",
			"/hello", "wget", "--timeout", "2s", "http://"+serverIP+":8080/")
		return cmd.Run() == nil
	}
	settles := func(what string, want bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for connects() != want {
			require.True(t, time.Now().Before(deadline), "%s: still %v after a minute\n%s", what, !want, agent.logTail())
		}
	}
	settles("no policy: client reaches server", true)
	must(denyIngressYAML, "apply", "-f", "-")
	settles("default deny on the agent's bridge: client is stopped", false)
	must(allowYAML, "apply", "-f", "-")
	settles("allowed by label: client reaches server", true)
	log, err := os.ReadFile(agent.log)
	require.NoError(t, err)
	assert.Contains(t, string(log), "network policy enforcer started for the pods of agent-np")
}

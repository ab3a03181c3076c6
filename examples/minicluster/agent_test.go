package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/kubelet/clientcert"
)

// agentProxyTable is the nftables table of agent name's service proxy in
// the tests (agents on one host need one table each); "none" without root.
func agentProxyTable(name string) string {
	if os.Geteuid() != 0 {
		return "none"
	}
	return "orkit-test-" + name
}

// startAgent starts `minicluster --role agent` on the fake runtime
// joining server, with args adding the token and the CA (first start).
func startAgent(t *testing.T, bin, name, dir, server string, args ...string) *serverProc {
	t.Helper()
	args = append([]string{"--role", "agent", "--data-dir", dir, "--server", server, "--node-name", name,
		"--runtime", runtimeFake, "--proxy-table", agentProxyTable(name)}, args...)
	return startProcess(t, bin, name, dir, args...)
}

// caHashOf returns the CA pin of the server's data dir.
func caHashOf(t *testing.T, serverDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(serverDir, "pki", "ca.crt"))
	require.NoError(t, err)
	blk, _ := pem.Decode(b)
	require.NotNil(t, blk)
	ca, err := x509.ParseCertificate(blk.Bytes)
	require.NoError(t, err)
	return clientcert.CAHash(ca)
}

// waitNodeCondition waits until kubectl shows node's Ready status as want
// ("True", "False" or "Unknown").
func waitNodeCondition(ctx context.Context, t *testing.T, p *serverProc, kc, node, want string, limit time.Duration) {
	t.Helper()
	waitUntil(ctx, t, limit, fmt.Sprintf("node %s Ready=%s", node, want), func() bool {
		out, err := p.kubectl(ctx, kc, "get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && strings.TrimSpace(out) == want
	})
}

// runningPodsByNode returns the Running pods of app=web by node.
func runningPodsByNode(ctx context.Context, p *serverProc, kc string) map[string]int {
	out, err := p.kubectl(ctx, kc, "get", "pods", "-l", "app=web", "--field-selector", "status.phase=Running",
		"-o", `jsonpath={range .items[*]}{.spec.nodeName}{"\n"}{end}`)
	by := map[string]int{}
	if err != nil {
		return by
	}
	for _, n := range strings.Fields(out) {
		by[n]++
	}
	return by
}

// TestAgents runs one server process and two agent processes that join
// it over the network: one with the CA's hash (taken from the server's
// TLS chain) and the token file, one with the CA file and the token.
// Their CSRs show Approved,Issued, the nodes register and run a
// Deployment's pods, their service proxies program the Service, and an
// agent started again reuses its certificate (no new CSR). The agents run
// simulated containers: real ones for two agents on one host would need
// a network namespace each (issue 21 item 3).
func TestAgents(t *testing.T) {
	requireKubectl(t)
	bin := buildMinicluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sdir := t.TempDir()
	srv := startServer(ctx, t, bin, "server-1", sdir, nil)
	kc := filepath.Join(sdir, "admin.kubeconfig")
	server := "https://" + srv.addr
	tokenFile := filepath.Join(sdir, "join-token")
	tok, err := os.ReadFile(tokenFile)
	require.NoError(t, err)

	dirs := map[string]string{"agent-1": t.TempDir(), "agent-2": t.TempDir()}
	agents := map[string]*serverProc{
		"agent-1": startAgent(t, bin, "agent-1", dirs["agent-1"], server, "--token-file", tokenFile, "--ca-cert-hash", caHashOf(t, sdir)),
		"agent-2": startAgent(t, bin, "agent-2", dirs["agent-2"], server, "--token", strings.TrimSpace(string(tok)),
			"--ca-cert-file", filepath.Join(sdir, "pki", "ca.crt")),
	}
	for name, a := range agents {
		waitNodeCondition(ctx, t, srv, kc, name, "True", 90*time.Second)
		_, err := os.Stat(filepath.Join(dirs[name], "pki", clientcert.FileName))
		require.NoError(t, err, "%s keeps its certificate", name)
		assert.Contains(t, a.logTail(), "client certificate system:node:"+name)
	}
	assert.Contains(t, agents["agent-1"].logTail(), "cluster CA taken from "+server)

	// kubectl get csr: both requests, from the bootstrap token's user,
	// approved and issued.
	out, err := srv.kubectl(ctx, kc, "get", "csr")
	require.NoError(t, err, out)
	rows := regexp.MustCompile(`(?m)^csr-\S+.*kubernetes.io/kube-apiserver-client-kubelet\s+system:bootstrap:\S+.*Approved,Issued\s*$`).FindAllString(out, -1)
	assert.Len(t, rows, 2, out)

	// A Deployment's pods run on the agents' nodes, and a Service of it
	// reaches every agent's proxy.
	out, err = srv.kubectl(ctx, kc, "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=4")
	require.NoError(t, err, out)
	waitUntil(ctx, t, 90*time.Second, "4 web pods Running on the agents", func() bool {
		by := runningPodsByNode(ctx, srv, kc)
		return by["agent-1"]+by["agent-2"] == 4 && by["agent-1"] > 0 && by["agent-2"] > 0
	})
	out, err = srv.kubectl(ctx, kc, "expose", "deployment", "web", "--port=80", "--target-port=8080")
	require.NoError(t, err, out)
	ip, err := srv.kubectl(ctx, kc, "get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
	require.NoError(t, err, ip)
	for name := range agents {
		if table := agentProxyTable(name); table != "none" {
			waitUntil(ctx, t, 30*time.Second, name+"'s proxy has the Service", func() bool {
				out, err := exec.CommandContext(ctx, "nft", "list", "table", "ip", table).CombinedOutput()
				return err == nil && strings.Contains(string(out), ip)
			})
		}
	}

	// Started again, agent-1 reuses its certificate and CA: no token, no
	// new request, the node is Ready again.
	agents["agent-1"].stop(t)
	again := startAgent(t, bin, "agent-1", dirs["agent-1"], server)
	waitUntil(ctx, t, 60*time.Second, "agent-1 started again", func() bool {
		return strings.Count(again.logTail(), "client certificate system:node:agent-1") == 2
	})
	waitNodeCondition(ctx, t, srv, kc, "agent-1", "True", 60*time.Second)
	out, err = srv.kubectl(ctx, kc, "get", "csr", "-o", "name")
	require.NoError(t, err, out)
	assert.Len(t, strings.Fields(out), 2, "no new request: %s", out)
	serials := regexp.MustCompile(`client certificate system:node:agent-1 \(serial ([0-9a-f]+)\)`).FindAllStringSubmatch(again.logTail(), -1)
	require.Len(t, serials, 2)
	assert.Equal(t, serials[0][1], serials[1][1], "the same certificate")
}

package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		"--runtime", runtimeFake, "--kubelet-port", "0", "--proxy-table", agentProxyTable(name)}, args...)
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

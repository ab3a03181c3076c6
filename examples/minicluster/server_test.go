package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/pki"
)

// serverProc is one `minicluster --role server` child process, started
// and stopped by its PID.
type serverProc struct {
	name, dir, addr string
	cmd             *exec.Cmd
	log             string
	exited          chan struct{}
}

// buildMinicluster builds this command into a temp dir.
func buildMinicluster(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "minicluster")
	out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

func requireKubectl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		etcdtest.Unavailable(t, "kubectl: "+err.Error())
	}
}

// startServer starts a server process on the etcd endpoints with data in
// dir (which holds the shared CA in pki/) and waits until it serves.
func startServer(ctx context.Context, t *testing.T, bin, name, dir string, etcd []string, extra ...string) *serverProc {
	t.Helper()
	addr := freeAddr(t)
	args := append([]string{"--role", "server", "--data-dir", dir, "--listen", addr, "--identity", name}, extra...)
	if len(etcd) > 0 {
		args = append(args, "--etcd-servers", strings.Join(etcd, ","))
	}
	p := startProcess(t, bin, name, dir, args...)
	p.addr = addr
	kc := filepath.Join(dir, "admin.kubeconfig")
	waitUntil(ctx, t, 90*time.Second, name+" serves /readyz", func() bool {
		select {
		case <-p.exited:
			t.Fatalf("%s exited:\n%s", name, p.logTail())
		default:
		}
		if _, err := os.Stat(kc); err != nil {
			return false
		}
		out, err := p.kubectl(ctx, kc, "get", "--raw", "/readyz")
		return err == nil && strings.TrimSpace(out) == "ok"
	})
	return p
}

// startProcess starts bin with args as a child process logging to
// dir/<name>.log; it is stopped by its PID when the test ends.
func startProcess(t *testing.T, bin, name, dir string, args ...string) *serverProc {
	t.Helper()
	return startCommand(t, name, dir, exec.Command(bin, args...))
}

// startCommand starts cmd (a process that execs, such as nsenter, keeps
// its PID) as startProcess does.
func startCommand(t *testing.T, name, dir string, cmd *exec.Cmd) *serverProc {
	t.Helper()
	p := &serverProc{name: name, dir: dir, log: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	p.cmd = cmd
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	require.NoError(t, p.cmd.Start())
	go func() {
		_ = p.cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's log (end):\n%s", name, p.logTail())
		}
	})
	t.Cleanup(func() { p.stop(t) })
	return p
}

// kubectl runs kubectl with kubeconfig against this server's address.
func (p *serverProc) kubectl(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	args = append([]string{"--kubeconfig", kubeconfig, "--server", "https://" + p.addr, "--request-timeout", "10s"}, args...)
	out, err := exec.CommandContext(ctx, "kubectl", args...).CombinedOutput()
	return string(out), err
}

// kubectlStdout is kubectl returning only its standard output, for
// commands whose output is compared (kubectl exec): client-go may log to
// stderr meanwhile ("Unknown stream id 1, discarding message" when a
// WebSocket frame arrives before its stream is set up); stderr comes with
// the error.
func (p *serverProc) kubectlStdout(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	args = append([]string{"--kubeconfig", kubeconfig, "--server", "https://" + p.addr, "--request-timeout", "10s"}, args...)
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	return string(out), err
}

// kill sends SIGKILL to the process (by its PID) and waits for it to end.
func (p *serverProc) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
	<-p.exited
}

// stop ends the process by its PID with SIGTERM (SIGKILL after 20 s).
func (p *serverProc) stop(t *testing.T) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Logf("%s did not stop on SIGTERM; killing it", p.name)
		_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

func (p *serverProc) logTail() string {
	s := p.logText()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}

// logText is the process's whole log, for checks on what it printed: a
// tail may have scrolled past a line written at start.
func (p *serverProc) logText() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(ctx context.Context, t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("timed out after %v waiting until %s", limit, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// copyPKI gives dst the cluster CA of src, as an operator copies the
// first server's data directory.
func copyPKI(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dst, "pki"), 0o700))
	for _, f := range []string{"ca.crt", "ca.key"} {
		b, err := os.ReadFile(filepath.Join(src, "pki", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, "pki", f), b, 0o600))
	}
}

// leaseHolder returns the holder of kube-system/name, read through p.
func leaseHolder(ctx context.Context, p *serverProc, kc, name string) string {
	out, err := p.kubectl(ctx, kc, "get", "lease", "-n", leaseNamespace, name, "-o", "jsonpath={.spec.holderIdentity}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// TestServers runs three server processes on one three-member etcd
// cluster: kubectl works through each of them, one of them leads the
// controller manager and one the scheduler (the Lease holders), and when
// the leading controller manager is killed another takes its Lease and
// completes a Deployment scale made afterwards. Killing a server that
// leads nothing leaves the others serving.
func TestServers(t *testing.T) {
	requireKubectl(t)
	etcd := etcdtest.Start(t, 3)
	bin := buildMinicluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	names := []string{"server-1", "server-2", "server-3"}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	procs := map[string]*serverProc{}
	procs[names[0]] = startServer(ctx, t, bin, names[0], dirs[0], etcd.Endpoints())
	for i := 1; i < 3; i++ {
		copyPKI(t, dirs[0], dirs[i])
		procs[names[i]] = startServer(ctx, t, bin, names[i], dirs[i], etcd.Endpoints())
	}
	kc := filepath.Join(dirs[0], "admin.kubeconfig") // one credential, accepted by every server (shared CA)

	// A write through each server is read through every other: one store.
	for i, n := range names {
		out, err := procs[n].kubectl(ctx, kc, "create", "configmap", fmt.Sprintf("cm-%d", i), "--from-literal=k=v")
		require.NoError(t, err, out)
	}
	for _, n := range names {
		out, err := procs[n].kubectl(ctx, kc, "get", "configmaps", "-o", "name")
		require.NoError(t, err, out)
		for i := range names {
			assert.Contains(t, out, fmt.Sprintf("configmap/cm-%d", i), "through %s", n)
		}
	}

	// One holder each for the controller manager and the scheduler.
	var cmLeader string
	waitUntil(ctx, t, 60*time.Second, "the leases have holders", func() bool {
		cmLeader = leaseHolder(ctx, procs[names[0]], kc, controllerLeaseName)
		return procs[cmLeader] != nil && procs[leaseHolder(ctx, procs[names[0]], kc, schedulerLeaseName)] != nil
	})
	for _, n := range names[1:] {
		assert.Equal(t, cmLeader, leaseHolder(ctx, procs[n], kc, controllerLeaseName), "every server sees one holder")
	}
	t.Logf("controller manager leader: %s; scheduler leader: %s", cmLeader, leaseHolder(ctx, procs[names[0]], kc, schedulerLeaseName))

	// A node joins with a server's bootstrap token: it authenticates as
	// system:bootstrap:<id>, and its kubelet client request is approved
	// and signed by the leading controller manager.
	tokBytes, err := os.ReadFile(filepath.Join(dirs[1], "join-token"))
	require.NoError(t, err)
	token := strings.TrimSpace(string(tokBytes))
	empty := filepath.Join(t.TempDir(), "empty.kubeconfig")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	asBootstrap := func(stdin string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", empty, "--server", "https://" + procs[names[2]].addr,
			"--certificate-authority", filepath.Join(dirs[0], "pki", "ca.crt"), "--token", token}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := asBootstrap("", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	require.NoError(t, err, out)
	assert.Equal(t, "system:bootstrap:"+strings.Split(token, ".")[0], out)
	out, err = asBootstrap(nodeCSR(t, "agent-1"), "create", "-f", "-")
	require.NoError(t, err, out)
	waitUntil(ctx, t, 60*time.Second, "the join request is approved and issued", func() bool {
		out, err := procs[names[0]].kubectl(ctx, kc, "get", "csr", "join-agent-1")
		return err == nil && strings.Contains(out, "Approved,Issued")
	})

	// The active controller manager works: a Deployment gets its pods.
	any := procs[names[0]]
	out, err = any.kubectl(ctx, kc, "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=2")
	require.NoError(t, err, out)
	waitReplicas(ctx, t, any, kc, 2)

	// SIGKILL the leading controller manager: another server takes the
	// lease (after the lease duration) and a scale made afterwards completes.
	killed := time.Now()
	procs[cmLeader].kill(t)
	var survivor *serverProc
	for _, n := range names {
		if n != cmLeader {
			survivor = procs[n]
			break
		}
	}
	out, err = survivor.kubectl(ctx, kc, "scale", "deployment", "web", "--replicas=4")
	require.NoError(t, err, out)
	var newLeader string
	waitUntil(ctx, t, 90*time.Second, "another server leads the controller manager", func() bool {
		newLeader = leaseHolder(ctx, survivor, kc, controllerLeaseName)
		return newLeader != cmLeader && procs[newLeader] != nil
	})
	waitReplicas(ctx, t, survivor, kc, 4)
	t.Logf("controller manager: %s killed; %s took the lease and the scale to 4 completed %v after the kill",
		cmLeader, newLeader, time.Since(killed).Round(100*time.Millisecond))

	// Kill the server that leads nothing: the last one still serves.
	for _, n := range names {
		if n != cmLeader && n != newLeader {
			procs[n].kill(t)
		}
	}
	out, err = procs[newLeader].kubectl(ctx, kc, "get", "configmap", "cm-2", "-o", "jsonpath={.data.k}")
	require.NoError(t, err, out)
	assert.Equal(t, "v", out)
}

// waitReplicas waits until Deployment web reports n replicas (pods
// created by its ReplicaSet; no node runs them).
func waitReplicas(ctx context.Context, t *testing.T, p *serverProc, kc string, n int) {
	t.Helper()
	waitUntil(ctx, t, 90*time.Second, fmt.Sprintf("deployment web has %d replicas", n), func() bool {
		out, err := p.kubectl(ctx, kc, "get", "deployment", "web", "-o", "jsonpath={.status.replicas}")
		return err == nil && out == fmt.Sprint(n)
	})
}

// TestCheckServer checks the distributed settings: unknown roles, nodes in
// a server, and half a CA are refused with the reason.
func TestCheckServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    options
		wantErr string
	}{
		{"all in one", options{Nodes: 1}, ""},
		{"server", options{Server: serverOptions{Role: roleServer}}, ""},
		{"unknown role", options{Server: serverOptions{Role: "worker"}}, `--role "worker"`},
		{"server with nodes", options{Nodes: 1, Server: serverOptions{Role: roleServer}}, "runs no nodes"},
		{"server with sim nodes", options{SimNodes: 3, Server: serverOptions{Role: roleServer}}, "runs no nodes"},
		{"half a CA", options{Server: serverOptions{CACertFile: "ca.crt"}}, "go together"},
		{"half a front-proxy CA", options{Server: serverOptions{FrontProxyCAKeyFile: "front-proxy-ca.key"}}, "--front-proxy-ca-cert and --front-proxy-ca-key go together"},
		{"wide cluster CIDR", options{Nodes: 1, Server: serverOptions{ClusterCIDR: netip.MustParsePrefix("10.240.0.0/12"), NodeCIDRMaskSize: 24}}, ""},
		{"sim nodes on their own CIDR", options{SimNodes: 5000, Server: serverOptions{ClusterCIDR: netip.MustParsePrefix("172.16.0.0/12"), NodeCIDRMaskSize: 26}}, ""},
		{"real nodes outside the cluster CIDR", options{Nodes: 1, Server: serverOptions{ClusterCIDR: netip.MustParsePrefix("172.16.0.0/12")}}, "must contain 10.244.0.0/17"},
		{"mask shorter than the CIDR", options{Server: serverOptions{ClusterCIDR: netip.MustParsePrefix("10.244.0.0/16"), NodeCIDRMaskSize: 16}}, "--node-cidr-mask-size 16"},
		{"mask too long", options{Server: serverOptions{NodeCIDRMaskSize: 31}}, "want 17 to 30"},
		{"IPv6 cluster CIDR", options{Server: serverOptions{ClusterCIDR: netip.MustParsePrefix("fd00::/48")}}, "want an IPv4 prefix"},
		{"agent", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://127.0.0.1:6443", Runtime: runtimeFake}}, ""},
		{"agent without server", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Runtime: runtimeFake}}, "needs --server"},
		{"agent with nodes", options{Nodes: 1, Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://x"}}, "one node"},
		{"agent bad hash", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://x", CACertHash: "md5:00"}}, "--ca-cert-hash"},
		{"agent bad runtime", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://x", Runtime: "docker"}}, `--runtime "docker"`},
		{"agent short ttl", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://x", Runtime: runtimeFake, CertTTL: time.Minute}}, "at least 10m"},
		{"agent bad node ip", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://x", Runtime: runtimeFake, NodeIP: "x.y"}}, "--node-ip"},
		{"agent missing token file", options{Server: serverOptions{Role: roleAgent}, Agent: agentOptions{Server: "https://x", TokenFile: "/nonexistent/token"}}, "--token-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.checkServer()
			if tc.wantErr == "" {
				require.NoError(t, err)
				if tc.opts.Server.Role == roleAgent {
					assert.NotEmpty(t, tc.opts.Agent.NodeName, "node name defaults to the host name")
					return
				}
				assert.NotEmpty(t, tc.opts.Server.Identity, "identity defaults to host_pid")
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

// TestControlPlaneConfigBadFiles checks that a missing CA or etcd TLS file
// stops start-up with the file named.
func TestControlPlaneConfigBadFiles(t *testing.T) {
	dir := t.TempDir()
	o := options{DataDir: dir, Server: serverOptions{CACertFile: filepath.Join(dir, "no.crt"), CAKeyFile: filepath.Join(dir, "no.key")}}
	_, err := o.controlPlaneConfig()
	require.ErrorContains(t, err, "no.crt")
	o = options{DataDir: dir, Server: serverOptions{EtcdServers: []string{"https://127.0.0.1:1"}, EtcdCAFile: filepath.Join(dir, "etcd-ca.crt")}}
	_, err = o.controlPlaneConfig()
	require.ErrorContains(t, err, "--etcd-cafile")
	o = options{DataDir: dir, Server: serverOptions{FrontProxyCACertFile: filepath.Join(dir, "no-fp.crt"), FrontProxyCAKeyFile: filepath.Join(dir, "no-fp.key")}}
	_, err = o.controlPlaneConfig()
	require.ErrorContains(t, err, "--front-proxy-ca-cert")
	require.ErrorContains(t, err, "no-fp.crt")
}

// TestControlPlaneConfigFrontProxyCA: the front-proxy CA named by
// --front-proxy-ca-cert/--front-proxy-ca-key signs the proxy client
// certificate (kubeadm's front-proxy-ca shared by the servers); without
// them the control plane keeps its own in DATA/pki/front-proxy.
func TestControlPlaneConfigFrontProxyCA(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.NewCA("shared-front-proxy-ca")
	require.NoError(t, err)
	require.NoError(t, ca.Save(filepath.Join(dir, "shared")))
	o := options{DataDir: dir, Server: serverOptions{FrontProxyCACertFile: filepath.Join(dir, "shared", "ca.crt"),
		FrontProxyCAKeyFile: filepath.Join(dir, "shared", "ca.key")}}
	cfg, err := o.controlPlaneConfig()
	require.NoError(t, err)
	require.NotNil(t, cfg.PKI.FrontProxyCA)
	assert.Equal(t, ca.CertPEM, cfg.PKI.FrontProxyCA.CertPEM)
	assert.Nil(t, cfg.PKI.CA, "the cluster CA stays the default")

	cfg, err = (&options{DataDir: dir}).controlPlaneConfig()
	require.NoError(t, err)
	assert.Nil(t, cfg.PKI.FrontProxyCA, "default: the control plane's DATA/pki/front-proxy")

	// --role server: the servers of one cluster share DATA/pki's CA, which
	// then also signs the proxy client certificate (given as the CA)
	cfg, err = (&options{DataDir: dir, Server: serverOptions{Role: roleServer}}).controlPlaneConfig()
	require.NoError(t, err)
	require.NotNil(t, cfg.PKI.CA)
	assert.Nil(t, cfg.PKI.FrontProxyCA)
	onDisk, err := pki.LoadCA(filepath.Join(dir, "pki", "ca.crt"), filepath.Join(dir, "pki", "ca.key"))
	require.NoError(t, err)
	assert.Equal(t, onDisk.CertPEM, cfg.PKI.CA.CertPEM)
}

// nodeCSR is a kubelet client CertificateSigningRequest for node, named
// join-<node>.
func nodeCSR(t *testing.T, node string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "system:node:" + node, Organization: []string{"system:nodes"}}}, key)
	require.NoError(t, err)
	req := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	return fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"join-%s"},
"spec":{"request":%q,"signerName":"kubernetes.io/kube-apiserver-client-kubelet","usages":["digital signature","client auth"]}}`,
		node, base64.StdEncoding.EncodeToString(req))
}

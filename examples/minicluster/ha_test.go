package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/internal/lbtest"
	"github.com/orkit/orkit/kubelet/clientcert"
	"github.com/orkit/orkit/pki"
)

// balancerHost is the loopback address the test's haproxy listens on:
// not 127.0.0.1, so kubectl and the agents check that the servers'
// certificates name it (--tls-san).
const balancerHost = "127.0.0.2"

// haServerFlags make failover and eviction quick enough for a test.
var haServerFlags = []string{"--tls-san", balancerHost,
	"--leader-elect-lease-duration", "10s", "--leader-elect-renew-deadline", "8s", "--leader-elect-retry-period", "2s",
	"--node-monitor-grace-period", "20s", "--default-toleration-seconds", "2"}

// healthCert writes a client certificate and key (one PEM file) issued
// by the cluster CA in serverDir, for haproxy's health checks.
func healthCert(t *testing.T, serverDir string) string {
	t.Helper()
	ca, err := pki.LoadCA(filepath.Join(serverDir, "pki", "ca.crt"), filepath.Join(serverDir, "pki", "ca.key"))
	require.NoError(t, err)
	kp, err := ca.IssueClient("haproxy-health")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "health.pem")
	require.NoError(t, os.WriteFile(path, append(kp.CertPEM, kp.KeyPEM...), 0o600))
	return path
}

// TestHABehindBalancer is the distributed cluster of issue 21 on one
// host: a 3-member etcd, three servers behind a real haproxy, three
// agents joining through the balancer (two with a token file and the CA
// hash, one with the token and the CA file), kubectl through the
// balancer. The CSRs show Approved,Issued, a Deployment's pods run on
// the agents' nodes and every agent's service proxy programs its Service.
// The agents run simulated containers: real ones for three agents on one
// host would need a network namespace each (issue 21 item 3). Then the
// faults, each followed by proof that the cluster still works:
//   - SIGKILL an API server: kubectl through the balancer keeps working
//     (every call of a loop across the kill succeeds), and the informers
//     that watched through it resume on the others without a LIST;
//   - SIGKILL the leading controller manager: another server takes the
//     Lease and a Deployment scale made afterwards completes;
//   - SIGKILL an agent: its node goes NotReady, its pods are replaced on
//     the other nodes; started again it re-registers with its certificate
//     (no new CSR) and is Ready.
func TestHABehindBalancer(t *testing.T) {
	requireKubectl(t)
	lbtest.Require(t)
	etcd := etcdtest.Start(t, 3)
	bin := buildMinicluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	names := []string{"server-1", "server-2", "server-3"}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	procs := map[string]*serverProc{}
	procs[names[0]] = startServer(ctx, t, bin, names[0], dirs[0], etcd.Endpoints(), haServerFlags...)
	for i := 1; i < 3; i++ {
		copyPKI(t, dirs[0], dirs[i])
		procs[names[i]] = startServer(ctx, t, bin, names[i], dirs[i], etcd.Endpoints(), haServerFlags...)
	}
	var backends []string
	for _, n := range names {
		backends = append(backends, procs[n].addr)
	}
	b := lbtest.Start(t, lbtest.Config{Backends: backends, Host: balancerHost, CAFile: filepath.Join(dirs[0], "pki", "ca.crt"),
		ClientCertFile: healthCert(t, dirs[0])})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("haproxy's log:\n%s", b.Log())
		}
	})
	lb := &serverProc{name: "balancer", addr: b.Addr()}
	kc := filepath.Join(dirs[0], "admin.kubeconfig")
	waitUntil(ctx, t, 30*time.Second, "the balancer serves /readyz", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "--raw", "/readyz")
		return err == nil && strings.TrimSpace(out) == "ok"
	})

	agents, agentDirs := startHAAgents(ctx, t, bin, lb, kc, dirs)
	out, err := lb.kubectl(ctx, kc, "get", "csr")
	require.NoError(t, err, out)
	assert.Len(t, regexp.MustCompile(`(?m)kube-apiserver-client-kubelet\s+system:bootstrap:\S+.*Approved,Issued\s*$`).FindAllString(out, -1), 3, out)
	waitUntil(ctx, t, 30*time.Second, "the kubelets' serving certificates are issued", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "csr")
		return err == nil && len(regexp.MustCompile(`(?m)kubernetes.io/kubelet-serving\s+system:node:agent-\d.*Approved,Issued\s*$`).FindAllString(out, -1)) == 3
	})

	out, err = lb.kubectl(ctx, kc, "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=6")
	require.NoError(t, err, out)
	waitRunning(ctx, t, lb, kc, 6, "")
	checkAgentProxies(ctx, t, lb, kc)
	if agentRuntime(agents["agent-1"]) == runtimeContainerd {
		checkRealAgent(ctx, t, lb, kc)
	}

	cmLeader := leaseHolder(ctx, lb, kc, controllerLeaseName)
	require.Contains(t, procs, cmLeader)
	killServerUnderLoad(ctx, t, b, lb, kc, procs, agents, localProxyTables("agent-1", "agent-2", "agent-3"), cmLeader)

	killControllerLeader(ctx, t, lb, kc, procs, cmLeader)

	// SIGKILL agent-3: NotReady, its pods replaced elsewhere; restarted,
	// it comes back with its certificate.
	killed := time.Now()
	agents["agent-3"].kill(t)
	waitNodeCondition(ctx, t, lb, kc, "agent-3", "Unknown", 60*time.Second)
	waitRunning(ctx, t, lb, kc, 8, "agent-3")
	t.Logf("agent-3 killed: NotReady and its pods replaced %v later", time.Since(killed).Round(100*time.Millisecond))
	again := startAgent(t, bin, "agent-3", agentDirs["agent-3"], lb.URL())
	waitNodeCondition(ctx, t, lb, kc, "agent-3", "True", 60*time.Second)
	out, err = lb.kubectl(ctx, kc, "get", "csr", "-o", "name")
	require.NoError(t, err, out)
	assert.Len(t, strings.Fields(out), 6, "no new request: %s", out)
	serials := regexp.MustCompile(`client certificate system:node:agent-3 \(serial ([0-9a-f]+)\)`).FindAllStringSubmatch(again.logText(), -1)
	require.Len(t, serials, 2, "the first start's line and the restart's (one log file)")
	assert.Equal(t, serials[0][1], serials[1][1], "the same certificate")
	waitUntil(ctx, t, 60*time.Second, "the evicted pods are gone", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "pods", "-l", "app=web", "-o", "name")
		return err == nil && len(strings.Fields(out)) == 8
	})
}

// killControllerLeader SIGKILLs the server leading the controller
// manager (cmLeader, one of procs) and scales Deployment web to 8: a
// surviving server takes the Lease and the scale completes.
func killControllerLeader(ctx context.Context, t *testing.T, lb *serverProc, kc string, procs map[string]*serverProc, cmLeader string) {
	t.Helper()
	killed := time.Now()
	procs[cmLeader].kill(t)
	delete(procs, cmLeader)
	out, err := lb.kubectl(ctx, kc, "scale", "deployment", "web", "--replicas=8")
	require.NoError(t, err, out)
	waitUntil(ctx, t, 60*time.Second, "another server leads the controller manager", func() bool {
		return procs[leaseHolder(ctx, lb, kc, controllerLeaseName)] != nil
	})
	waitRunning(ctx, t, lb, kc, 8, "")
	t.Logf("controller manager leader %s killed: the scale to 8 completed %v later", cmLeader, time.Since(killed).Round(100*time.Millisecond))
}

// URL is https://addr.
func (p *serverProc) URL() string { return "https://" + p.addr }

// startHAAgents starts agent-1 … agent-3 joining through the balancer,
// agent-2 with the token and the CA file, the others with a server's
// token file and the CA hash, and waits until their nodes are Ready.
func startHAAgents(ctx context.Context, t *testing.T, bin string, lb *serverProc, kc string, serverDirs []string) (map[string]*serverProc, map[string]string) {
	t.Helper()
	tokenFile := filepath.Join(serverDirs[1], "join-token")
	tok, err := os.ReadFile(tokenFile)
	require.NoError(t, err)
	join := map[string][]string{
		"agent-1": {"--token-file", tokenFile, "--ca-cert-hash", caHashOf(t, serverDirs[0])},
		"agent-2": {"--token", strings.TrimSpace(string(tok)), "--ca-cert-file", filepath.Join(serverDirs[2], "pki", "ca.crt")},
		"agent-3": {"--token-file", tokenFile, "--ca-cert-hash", caHashOf(t, serverDirs[2])},
	}
	if realAgentPossible(t) {
		join["agent-1"] = append(join["agent-1"], "--runtime", runtimeContainerd, "--bridge", "orkit0")
	}
	agents, dirs := map[string]*serverProc{}, map[string]string{}
	for name, args := range join {
		dirs[name] = t.TempDir()
		agents[name] = startAgent(t, bin, name, dirs[name], lb.URL(), args...)
	}
	for name, a := range agents {
		waitNodeCondition(ctx, t, lb, kc, name, "True", 90*time.Second)
		_, err := os.Stat(filepath.Join(dirs[name], "pki", clientcert.FileName))
		require.NoError(t, err, "%s keeps its certificate", name)
		assert.Contains(t, a.logText(), "client certificate system:node:"+name)
	}
	assert.Contains(t, agents["agent-1"].logText(), "cluster CA taken from "+lb.URL())
	return agents, dirs
}

// realAgentPossible says whether agent-1 can run real containers (root,
// containerd, runc, CNI plugins); under CI=true it must.
func realAgentPossible(t *testing.T) bool {
	t.Helper()
	if err := checkNodePrerequisites(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prerequisite missing (CI=true, so this fails instead of running agent-1 on simulated containers): %v", err)
		}
		t.Logf("agent-1 runs simulated containers: %v", err)
		return false
	}
	return true
}

// checkRealAgent runs a pod on agent-1 (real containers) behind a
// Service and reaches it from the host by its pod IP (the bridge on the
// pod CIDR node IPAM gave agent-1) and by its ClusterIP (agent-1's proxy).
func checkRealAgent(ctx context.Context, t *testing.T, lb *serverProc, kc string) {
	t.Helper()
	out, err := lb.kubectl(ctx, kc, "create", "deployment", "real", "--image=orkit.local/hello:v1", "--replicas=1")
	require.NoError(t, err, out)
	out, err = lb.kubectl(ctx, kc, "patch", "deployment", "real", "--type=merge",
		"-p", `{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/hostname":"agent-1"}}}}}`)
	require.NoError(t, err, out)
	out, err = lb.kubectl(ctx, kc, "expose", "deployment", "real", "--port=80", "--target-port=8080")
	require.NoError(t, err, out)
	// The first ReplicaSet's pod (made before the patch) may run on
	// agent-1 too and go away once the rollout completes: wait for it, or
	// its pod IP could be the one checked.
	out, err = lb.kubectl(ctx, kc, "rollout", "status", "deployment/real", "--timeout=90s")
	require.NoError(t, err, out)
	var podIP string
	waitUntil(ctx, t, 90*time.Second, "the real pod runs on agent-1", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "pods", "-l", "app=real", "--field-selector", "status.phase=Running",
			"-o", `jsonpath={range .items[*]}{.spec.nodeName} {.status.podIP} {.metadata.deletionTimestamp}{"\n"}{end}`)
		f := strings.Fields(out)
		if err != nil || len(f) != 2 || f[0] != "agent-1" {
			return false
		}
		podIP = f[1]
		return true
	})
	podCIDR, err := lb.kubectl(ctx, kc, "get", "node", "agent-1", "-o", "jsonpath={.spec.podCIDR}")
	require.NoError(t, err, podCIDR)
	prefix, err := netip.ParsePrefix(podCIDR)
	require.NoError(t, err)
	assert.True(t, prefix.Contains(netip.MustParseAddr(podIP)), "pod IP %s in agent-1's pod CIDR %s", podIP, podCIDR)
	ip, err := lb.kubectl(ctx, kc, "get", "service", "real", "-o", "jsonpath={.spec.clusterIP}")
	require.NoError(t, err, ip)
	hc := &http.Client{Timeout: 3 * time.Second}
	for _, url := range []string{"http://" + net.JoinHostPort(podIP, "8080") + "/", "http://" + ip + "/"} {
		var last string
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := hc.Get(url)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK && strings.HasPrefix(strings.TrimSpace(string(body)), "real-") {
					break
				}
				last = fmt.Sprintf("%s: %q", resp.Status, body)
			} else {
				last = err.Error()
			}
			if time.Now().After(deadline) {
				var diag strings.Builder
				for _, args := range [][]string{{"get", "pods", "-o", "wide"}, {"logs", "deploy/real"},
					{"exec", "deploy/real", "--", "wget", "http://127.0.0.1:8080/"}} {
					out, err := lb.kubectl(ctx, kc, args...)
					fmt.Fprintf(&diag, "$ kubectl %s (%v)\n%s\n", strings.Join(args, " "), err, out)
				}
				t.Fatalf("the real pod does not answer at %s: %s\n%s%s", url, last, diag.String(), hostNetworkState(ctx, podIP))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// kubectl logs goes API server -> kubelet over TLS: the kubelet's
	// serving certificate came from the cluster (kubelet-serving CSR).
	out, err = lb.kubectl(ctx, kc, "logs", "deploy/real")
	require.NoError(t, err, out)
	assert.Contains(t, out, "hello: listening on")
}

// checkAgentProxies exposes Deployment web and waits until each agent's
// service proxy has its ClusterIP in its nftables table (as root; the
// agents run no proxy otherwise).
func checkAgentProxies(ctx context.Context, t *testing.T, lb *serverProc, kc string) {
	t.Helper()
	out, err := lb.kubectl(ctx, kc, "expose", "deployment", "web", "--port=80", "--target-port=8080")
	require.NoError(t, err, out)
	ip, err := lb.kubectl(ctx, kc, "get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
	require.NoError(t, err, ip)
	waitProxies(ctx, t, localProxyTables("agent-1", "agent-2", "agent-3"), ip)
}

// proxyTable lists one agent's service proxy table (`nft list table`)
// wherever that agent runs: on the test's host or in its own network
// namespace.
type proxyTable struct {
	agent string
	list  func(ctx context.Context) (string, error)
}

// localProxyTables are the tables of agents running on the test's host
// (as root; the agents run no proxy otherwise).
func localProxyTables(agents ...string) []proxyTable {
	var tables []proxyTable
	for _, name := range agents {
		if table := agentProxyTable(name); table != "none" {
			tables = append(tables, proxyTable{agent: name, list: func(ctx context.Context) (string, error) {
				out, err := exec.CommandContext(ctx, "nft", "list", "table", "ip", table).CombinedOutput()
				return string(out), err
			}})
		}
	}
	return tables
}

// waitProxies waits until every agent's proxy table has the cluster IP.
func waitProxies(ctx context.Context, t *testing.T, tables []proxyTable, ip string) {
	t.Helper()
	for _, pt := range tables {
		waitUntil(ctx, t, 30*time.Second, pt.agent+"'s proxy has the Service at "+ip, func() bool {
			out, err := pt.list(ctx)
			return err == nil && strings.Contains(out, ip)
		})
	}
}

// waitRunning waits until n web pods are Running on nodes other than
// notOn, on at least two nodes.
func waitRunning(ctx context.Context, t *testing.T, lb *serverProc, kc string, n int, notOn string) {
	t.Helper()
	waitUntil(ctx, t, 90*time.Second, fmt.Sprintf("%d web pods Running (not on %q)", n, notOn), func() bool {
		by := runningPodsByNode(ctx, lb, kc)
		delete(by, notOn)
		total := 0
		for _, c := range by {
			total += c
		}
		return total == n && len(by) >= 2
	})
}

// killServerUnderLoad SIGKILLs a server other than keep while kubectl
// calls go through the balancer, and checks that every call succeeds and
// that haproxy takes the server out.
func killServerUnderLoad(ctx context.Context, t *testing.T, b *lbtest.Balancer, lb *serverProc, kc string, procs, agents map[string]*serverProc,
	tables []proxyTable, keep string) {
	t.Helper()
	// The victim leads neither component, so no informer starts afresh
	// on a survivor because of a new leader: every LIST after the kill
	// would be an informer relisting instead of resuming its watch.
	victim := ""
	sched := leaseHolder(ctx, lb, kc, schedulerLeaseName)
	for n := range procs {
		if n != keep && n != sched {
			victim = n
		}
	}
	require.NotEmpty(t, victim)
	var survivors []*serverProc
	for n, p := range procs {
		if n != victim {
			survivors = append(survivors, p)
		}
	}
	lists0, watches0, by0 := requestCountsBy(ctx, t, survivors, kc)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		calls    int
	)
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, err := lb.kubectl(ctx, kc, "get", "deployment", "web", "-o", "name")
			mu.Lock()
			calls++
			if err != nil || strings.TrimSpace(out) != "deployment.apps/web" {
				failures = append(failures, fmt.Sprintf("%v: %s", err, out))
			}
			mu.Unlock()
		}
	}()
	waitUntil(ctx, t, 30*time.Second, "kubectl calls before the kill", func() bool { mu.Lock(); defer mu.Unlock(); return calls >= 3 })
	procs[victim].kill(t)
	delete(procs, victim)
	waitUntil(ctx, t, 30*time.Second, "haproxy takes "+victim+" out", func() bool {
		return strings.Contains(b.Log(), " is DOWN")
	})
	waitUntil(ctx, t, 30*time.Second, "kubectl calls after the kill", func() bool { mu.Lock(); defer mu.Unlock(); return calls >= 15 })
	close(stop)
	wg.Wait()
	assert.Empty(t, failures, "kubectl through the balancer across the kill of %s (%d calls)", victim, calls)
	t.Logf("%s killed: %d kubectl calls through the balancer, %d failed", victim, calls, len(failures))

	checkResumeWithoutRelist(ctx, t, lb, kc, survivors, agents, tables, lists0, watches0, by0)
}

// checkResumeWithoutRelist checks that the agents' informers that watched
// through a killed server resume on the survivors with a watch from their
// resourceVersion, not a LIST: a Service made now reaches every proxy,
// and the survivors served no LIST since the counts lists0 and watches0
// were taken before the kill (a watch is counted when it ends).
func checkResumeWithoutRelist(ctx context.Context, t *testing.T, lb *serverProc, kc string, survivors []*serverProc,
	agents map[string]*serverProc, tables []proxyTable, lists0, watches0 int, by0 map[string]int) {
	t.Helper()
	// (with endpoints: the proxy's table names the cluster IPs of Services
	// that have some)
	// A connection haproxy had opened to the killed server can still fail
	// one call (GOAWAY): retry until the Service exists.
	waitUntil(ctx, t, 30*time.Second, "Service after-kill created through the balancer", func() bool {
		out, err := lb.kubectl(ctx, kc, "expose", "deployment", "web", "--name=after-kill", "--port=80", "--target-port=8080")
		return err == nil || strings.Contains(out, "AlreadyExists") || strings.Contains(out, "already exists")
	})
	ip, err := lb.kubectl(ctx, kc, "get", "service", "after-kill", "-o", "jsonpath={.spec.clusterIP}")
	require.NoError(t, err, ip)
	waitProxies(ctx, t, tables, ip)
	lists, watches, by := requestCountsBy(ctx, t, survivors, kc)
	for labels, n := range by {
		if n != by0[labels] {
			t.Logf("LISTs since before the kill: %d of {%s}", n-by0[labels], labels)
		}
	}
	cut := 0
	for _, a := range agents {
		cut += strings.Count(a.logText(), "informer: watch failed")
	}
	t.Logf("since before the kill the survivors served %d lists and ended %d watches; the agents logged %d cut watches in all",
		lists-lists0, watches-watches0, cut)
	assert.Zero(t, lists-lists0, "informers resume their watches without relisting")
}

// requestCountsBy sums the LIST and WATCH requests the servers have served
// (apiserver_request_total of their /metrics), the LISTs also by the
// metric's labels (which resource, which client).
func requestCountsBy(ctx context.Context, t *testing.T, servers []*serverProc, kc string) (lists, watches int, listsBy map[string]int) {
	t.Helper()
	listsBy = map[string]int{}
	re := regexp.MustCompile(`(?m)^apiserver_request_total\{([^}]*)\} (\d+)$`)
	for _, p := range servers {
		out, err := p.kubectl(ctx, kc, "get", "--raw", "/metrics")
		require.NoError(t, err, out)
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[2])
			switch {
			case strings.Contains(m[1], `verb="list"`):
				lists += n
				listsBy[m[1]] += n
			case strings.Contains(m[1], `verb="watch"`):
				watches += n
			}
		}
	}
	return lists, watches, listsBy
}

// agentRuntime is the --runtime an agent process was started with.
func agentRuntime(p *serverProc) string {
	rt := ""
	for i, a := range p.cmd.Args {
		if a == "--runtime" && i+1 < len(p.cmd.Args) {
			rt = p.cmd.Args[i+1]
		}
	}
	return rt
}

// hostNetworkState describes the host's routes, bridge and nftables
// tables for a failure message.
func hostNetworkState(ctx context.Context, podIP string) string {
	var b strings.Builder
	for _, c := range [][]string{{"ip", "route", "get", podIP}, {"ip", "-br", "addr"}, {"ip", "route"}, {"nft", "list", "tables"},
		{"bridge", "link"}, {"ip", "neigh", "show", "dev", "orkit0"}, {"nft", "list", "ruleset"}, {"sysctl", "net.bridge.bridge-nf-call-iptables"}} {
		out, err := exec.CommandContext(ctx, c[0], c[1:]...).CombinedOutput()
		fmt.Fprintf(&b, "$ %s (%v)\n%s\n", strings.Join(c, " "), err, out)
	}
	return b.String()
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/hostgw"
	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/internal/hosttest"
	"github.com/orkit/orkit/internal/lbtest"
	"github.com/orkit/orkit/proxy"
)

// spreadDeployment is Deployment web: 6 hello pods, at most one more on
// any node than on another (kubernetes.io/hostname spread).
const spreadDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
      containers:
      - {name: hello, image: orkit.local/hello:v1, ports: [{containerPort: 8080}]}
`

// TestClusterOnHosts is issue 21's acceptance cluster: a 3-member etcd,
// three servers behind haproxy, and three agents each on its own "host"
// (a network namespace on a test-made bridge, internal/hosttest) with
// its own containerd, CNI bridge and pod CIDR, joining through the
// balancer on the bridge's address. The agents keep host-gw routes
// (package hostgw), so a pod on node-3 reaches a pod on node-1 by its
// pod IP, and the Service's ClusterIP reaches the backends of all three
// nodes. Then one etcd member is SIGKILLed while 32 writers create
// ConfigMaps through the balancer: writes go on, no acknowledged write
// is lost, and the member restarted on its data dir catches up.
// Then the faults of the other parts, as TestHABehindBalancer runs them
// on one host: a server that leads neither component is SIGKILLed under
// kubectl calls through the balancer (none fails; the agents' informers
// resume without a LIST), then the server leading the controller manager
// (another takes the Lease and a scale completes), then node-3's agent
// (its node goes NotReady, its pods are replaced on the other nodes;
// started again on its data dir it re-registers with its certificate).
func TestClusterOnHosts(t *testing.T) {
	requireRealNode(t)
	lbtest.Require(t)
	hs := hosttest.Start(t, hosttest.Config{Hosts: 4}) // host-4 joins later
	etcd := etcdtest.Start(t, 3)
	bin := buildMinicluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()

	gw := hs.Gateway.String()
	flags := append([]string{"--tls-san", gw}, haServerFlags...)
	var dirs, backends []string
	procs := map[string]*serverProc{}
	for i := 1; i <= 3; i++ {
		dir, name := t.TempDir(), fmt.Sprintf("server-%d", i)
		if i > 1 {
			copyPKI(t, dirs[0], dir)
		}
		p := startServer(ctx, t, bin, name, dir, etcd.Endpoints(), flags...)
		dirs, backends, procs[name] = append(dirs, dir), append(backends, p.addr), p
	}
	b := lbtest.Start(t, lbtest.Config{Backends: backends, Host: gw, CAFile: filepath.Join(dirs[0], "pki", "ca.crt"),
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
	t.Logf("etcd, 3 servers and haproxy on %s up after %v", b.Addr(), time.Since(start).Round(time.Second))

	agents := startHostAgents(ctx, t, bin, hs, lb, kc, dirs[0])
	t.Logf("3 agents on their hosts Ready after %v", time.Since(start).Round(time.Second))
	checkAcrossHosts(ctx, t, hs, lb, kc)
	t.Logf("pod-to-pod and ClusterIP across hosts checked after %v", time.Since(start).Round(time.Second))
	killEtcdMemberUnderWrites(ctx, t, etcd, lb, kc)

	tables := hostProxyTables(hs.Hosts[:3])
	cmLeader := leaseHolder(ctx, lb, kc, controllerLeaseName)
	require.Contains(t, procs, cmLeader)
	killServerUnderLoad(ctx, t, b, lb, kc, procs, agents, tables, cmLeader)
	killControllerLeader(ctx, t, lb, kc, procs, cmLeader)
	t.Logf("API server and controller manager faults done after %v", time.Since(start).Round(time.Second))
	killHostAgent(ctx, t, bin, hs.Hosts[2], agents["node-3"], lb, kc)
	t.Logf("agent fault done after %v", time.Since(start).Round(time.Second))
	joinLate(ctx, t, bin, hs, lb, kc, dirs[0])
	t.Logf("done after %v", time.Since(start).Round(time.Second))
}

// joinLate starts node-4 on host-4, runs a pod there and reports how
// long the join and the first pod took (issue 21's figure);
// the other hosts route its pod CIDR while its Node exists and drop the
// route once it is deleted.
func joinLate(ctx context.Context, t *testing.T, bin string, hs *hosttest.Hosts, lb *serverProc, kc, serverDir string) {
	t.Helper()
	h, dir := hs.Hosts[3], t.TempDir()
	started := time.Now()
	agent := startCommand(t, "node-4", dir, h.Command(bin, "--role", "agent", "--data-dir", dir, "--server", lb.URL(), "--node-name", "node-4",
		"--node-ip", h.Addr.String(), "--runtime", runtimeContainerd, "--token-file", filepath.Join(serverDir, "join-token"),
		"--ca-cert-hash", caHashOf(t, serverDir)))
	waitNodeCondition(ctx, t, lb, kc, "node-4", "True", 120*time.Second)
	ready := time.Since(started)
	// The pod is made once the node is Ready: made before, it can be bound
	// while the node registers NotReady without a not-ready:NoSchedule
	// taint and be evicted by the short toleration of haServerFlags.
	created := time.Now()
	out, err := lb.kubectl(ctx, kc, "run", "first", "--image=orkit.local/hello:v1", "--restart=Never",
		"--overrides", `{"spec":{"nodeSelector":{"kubernetes.io/hostname":"node-4"}}}`)
	require.NoError(t, err, out)
	t.Cleanup(func() {
		if t.Failed() {
			for _, args := range [][]string{{"get", "pod", "first", "-o", "yaml"}, {"get", "events"}} {
				out, err := lb.kubectl(context.Background(), kc, args...)
				t.Logf("$ kubectl %s (%v)\n%s", strings.Join(args, " "), err, out)
			}
		}
	})
	waitUntil(ctx, t, 60*time.Second, "pod first Running on node-4", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "pod", "first", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Running"
	})
	t.Logf("node-4 joined: Ready %v after its agent started; a pod made then Running %v later (%v in all)", ready.Round(100*time.Millisecond),
		time.Since(created).Round(100*time.Millisecond), time.Since(started).Round(100*time.Millisecond))
	routes := func() string {
		out, err := hs.Hosts[0].Run("ip", "route", "show", "proto", fmt.Sprint(hostgw.RouteProtocol))
		require.NoError(t, err, out)
		return out
	}
	waitUntil(ctx, t, 30*time.Second, "host-1 routes node-4's pod CIDR via host-4", func() bool {
		return strings.Contains(routes(), "via "+h.Addr.String())
	})
	agent.stop(t)
	out, err = lb.kubectl(ctx, kc, "delete", "node", "node-4")
	require.NoError(t, err, out)
	waitUntil(ctx, t, 30*time.Second, "host-1 drops the route to node-4's pod CIDR", func() bool {
		return !strings.Contains(routes(), "via "+h.Addr.String())
	})
}

// startHostAgents starts node-<i> on host-<i> (i = 1, 2, 3) (its address the node's
// InternalIP) joining through the balancer, waits until the nodes are
// Ready with a pod CIDR each, and returns the agents by node name.
func startHostAgents(ctx context.Context, t *testing.T, bin string, hs *hosttest.Hosts, lb *serverProc, kc, serverDir string) map[string]*serverProc {
	t.Helper()
	tokenFile := filepath.Join(serverDir, "join-token")
	agents := map[string]*serverProc{}
	for i, h := range hs.Hosts[:3] {
		name := fmt.Sprintf("node-%d", i+1)
		agents[name] = startHostAgent(t, bin, h, name, t.TempDir(), lb, "--token-file", tokenFile, "--ca-cert-hash", caHashOf(t, serverDir))
	}
	cidrs := map[string]bool{}
	for i, h := range hs.Hosts[:3] {
		name := fmt.Sprintf("node-%d", i+1)
		waitNodeCondition(ctx, t, lb, kc, name, "True", 150*time.Second)
		out, err := lb.kubectl(ctx, kc, "get", "node", name, "-o",
			`jsonpath={.spec.podCIDR} {.status.addresses[?(@.type=="InternalIP")].address}`)
		require.NoError(t, err, out)
		f := strings.Fields(out)
		require.Len(t, f, 2, out)
		assert.Equal(t, h.Addr.String(), f[1], "%s advertises its host's address", name)
		cidrs[f[0]] = true
	}
	assert.Len(t, cidrs, 3, "a pod CIDR each")
	// Each host's guard is its own: recorded apart from the machine's.
	out, err := hs.Hosts[0].Run("readlink", "/proc/self/ns/net")
	require.NoError(t, err, out)
	id := strings.Trim(strings.TrimPrefix(strings.TrimSpace(out), "net:"), "[]")
	entries, err := os.ReadDir(filepath.Join(cni.DefaultHostGuardStateDir, "netns-"+id))
	require.NoError(t, err)
	assert.NotEmpty(t, entries, "host-1's agent holds its host guard")
	out, err = hs.Hosts[0].Run("ip", "route", "show", "type", "unreachable")
	require.NoError(t, err, out)
	assert.Contains(t, out, "10.244.0.0/16", "host-1's guard")
	return agents
}

// startHostAgent starts the agent of node name on host h with its data
// in dir, joining through the balancer; join adds the token and the CA
// on a first start.
func startHostAgent(t *testing.T, bin string, h *hosttest.Host, name, dir string, lb *serverProc, join ...string) *serverProc {
	t.Helper()
	args := append([]string{"--role", "agent", "--data-dir", dir, "--server", lb.URL(), "--node-name", name,
		"--node-ip", h.Addr.String(), "--runtime", runtimeContainerd}, join...)
	return startCommand(t, name, dir, h.Command(bin, args...))
}

// hostProxyTables are the service proxy tables of the agents on hosts
// (each in its host's namespace, under the default name).
func hostProxyTables(hosts []*hosttest.Host) []proxyTable {
	var tables []proxyTable
	for i, h := range hosts {
		tables = append(tables, proxyTable{agent: fmt.Sprintf("node-%d", i+1), list: func(ctx context.Context) (string, error) {
			return h.Run("nft", "list", "table", proxy.TableFamily, proxy.TableName)
		}})
	}
	return tables
}

// moverDeployment is Deployment mover: 2 hello pods that prefer node-3,
// the node whose agent killHostAgent kills.
const moverDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: mover}
spec:
  replicas: 2
  selector: {matchLabels: {app: mover}}
  template:
    metadata: {labels: {app: mover}}
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            preference: {matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-3]}]}
      containers:
      - {name: hello, image: orkit.local/hello:v1}
`

// killHostAgent SIGKILLs agent (node-3's, on host h; its containerd goes
// with it, the containers stay, as on a machine whose kubelet crashed):
// the node goes NotReady after the grace period and Deployment mover's
// pods there are replaced on the other nodes (web's spread keeps its own
// replacements for node-3). Started again on its data dir without a
// token, the agent re-registers with its certificate (no new CSR), is
// Ready, and the evicted pods are finalized.
func killHostAgent(ctx context.Context, t *testing.T, bin string, h *hosttest.Host, agent *serverProc, lb *serverProc, kc string) {
	t.Helper()
	manifest := filepath.Join(t.TempDir(), "mover.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(moverDeployment), 0o644))
	out, err := lb.kubectl(ctx, kc, "apply", "-f", manifest)
	require.NoError(t, err, out)
	// podsOf counts app's pods: all of them, and those Running and not
	// being deleted by node (an evicted pod on a dead node stays Running
	// until its kubelet returns).
	podsOf := func(app string) (running map[string]int, total int) {
		out, err := lb.kubectl(ctx, kc, "get", "pods", "-l", "app="+app,
			"-o", `jsonpath={range .items[*]}{.status.phase}|{.metadata.deletionTimestamp}|{.spec.nodeName}{"\n"}{end}`)
		running = map[string]int{}
		if err != nil {
			return running, -1
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Split(l, "|")
			if len(f) != 3 {
				continue
			}
			total++
			if f[0] == "Running" && f[1] == "" && f[2] != "" {
				running[f[2]]++
			}
		}
		return running, total
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, args := range [][]string{{"get", "pods", "-A", "-o", "wide"}, {"get", "nodes", "-o", "custom-columns=NAME:.metadata.name,TAINTS:.spec.taints"}} {
				out, err := lb.kubectl(context.Background(), kc, args...)
				t.Logf("$ kubectl %s (%v)\n%s", strings.Join(args, " "), err, out)
			}
		}
	})
	onVictim := 0
	waitUntil(ctx, t, 90*time.Second, "2 mover pods Running", func() bool {
		by, _ := podsOf("mover")
		onVictim = by["node-3"]
		return by["node-1"]+by["node-2"]+by["node-3"] == 2
	})
	require.Positive(t, onVictim, "a mover pod runs on node-3")
	csrs, err := lb.kubectl(ctx, kc, "get", "csr", "-o", "name")
	require.NoError(t, err, csrs)

	killed := time.Now()
	agent.kill(t)
	waitNodeCondition(ctx, t, lb, kc, "node-3", "Unknown", 60*time.Second)
	waitUntil(ctx, t, 90*time.Second, "2 mover pods Running, none on node-3", func() bool {
		by, _ := podsOf("mover")
		return by["node-3"] == 0 && by["node-1"]+by["node-2"] == 2
	})
	t.Logf("node-3's agent killed: NotReady and its %d mover pod(s) replaced %v later", onVictim, time.Since(killed).Round(100*time.Millisecond))

	again := startHostAgent(t, bin, h, "node-3", agent.dir, lb)
	waitNodeCondition(ctx, t, lb, kc, "node-3", "True", 90*time.Second)
	out, err = lb.kubectl(ctx, kc, "get", "csr", "-o", "name")
	require.NoError(t, err, out)
	assert.Equal(t, strings.Fields(csrs), strings.Fields(out), "no new request")
	serials := regexp.MustCompile(`client certificate system:node:node-3 \(serial ([0-9a-f]+)\)`).FindAllStringSubmatch(again.logText(), -1)
	require.Len(t, serials, 2, "the first start's line and the restart's (one log file)")
	assert.Equal(t, serials[0][1], serials[1][1], "the same certificate")
	waitUntil(ctx, t, 120*time.Second, "8 web and 2 mover pods Running, the evicted ones gone", func() bool {
		web, nWeb := podsOf("web")
		mover, nMover := podsOf("mover")
		return nWeb == 8 && nMover == 2 && web["node-1"]+web["node-2"]+web["node-3"] == 8 && mover["node-1"]+mover["node-2"] == 2
	})
	t.Logf("node-3's agent restarted: Ready with its certificate and every pod settled %v after the kill", time.Since(killed).Round(100*time.Millisecond))
}

// checkAcrossHosts runs the spread Deployment and checks, from a pod on
// node-3, a pod on node-1 by pod IP and every node's pods through the
// Service's ClusterIP; each host routes the other two pod CIDRs.
func checkAcrossHosts(ctx context.Context, t *testing.T, hs *hosttest.Hosts, lb *serverProc, kc string) {
	t.Helper()
	manifest := filepath.Join(t.TempDir(), "web.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(spreadDeployment), 0o644))
	out, err := lb.kubectl(ctx, kc, "apply", "-f", manifest)
	require.NoError(t, err, out)
	out, err = lb.kubectl(ctx, kc, "expose", "deployment", "web", "--port=80", "--target-port=8080")
	require.NoError(t, err, out)
	pods := map[string][2]string{} // pod name -> node, IP
	waitUntil(ctx, t, 120*time.Second, "2 web pods Running on each node", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "pods", "-l", "app=web", "--field-selector", "status.phase=Running",
			"-o", `jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.podIP}{"\n"}{end}`)
		if err != nil {
			return false
		}
		clear(pods)
		by := map[string]int{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) == 3 {
				pods[f[0]] = [2]string{f[1], f[2]}
				by[f[1]]++
			}
		}
		return by["node-1"] == 2 && by["node-2"] == 2 && by["node-3"] == 2
	})
	for i, h := range hs.Hosts[:3] {
		out, err := h.Run("ip", "route", "show", "proto", fmt.Sprint(hostgw.RouteProtocol))
		require.NoError(t, err, out)
		assert.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 2, "host-%d routes the other nodes' pod CIDRs: %s", i+1, out)
	}
	var from, target, targetIP string
	for name, p := range pods {
		switch p[0] {
		case "node-3":
			from = name
		case "node-1":
			target, targetIP = name, p[1]
		}
	}
	body := execWget(ctx, t, lb, kc, from, fmt.Sprintf("http://%s:8080/", targetIP), 30*time.Second)
	assert.Equal(t, target, body, "%s on node-3 reaches %s on node-1 at %s", from, target, targetIP)

	ip, err := lb.kubectl(ctx, kc, "get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
	require.NoError(t, err, ip)
	seen := map[string]bool{}
	waitUntil(ctx, t, 60*time.Second, "the ClusterIP reaches pods on all three nodes from node-3", func() bool {
		out, err := lb.kubectlStdout(ctx, kc, "exec", from, "--", "wget", "http://"+ip+"/")
		if p, ok := pods[strings.TrimSpace(out)]; err == nil && ok {
			seen[p[0]] = true
		}
		return len(seen) == 3
	})
}

// execWget runs the hello image's wget in pod until it succeeds (the
// service proxies and routes settle) and returns the body.
func execWget(ctx context.Context, t *testing.T, lb *serverProc, kc, pod, url string, limit time.Duration) string {
	t.Helper()
	var body string
	waitUntil(ctx, t, limit, "wget "+url+" from "+pod, func() bool {
		out, err := lb.kubectlStdout(ctx, kc, "exec", pod, "--", "wget", url)
		if err != nil {
			t.Logf("wget %s from %s: %v: %s", url, pod, err, out)
		}
		body = strings.TrimSpace(out)
		return err == nil
	})
	return body
}

// killEtcdMemberUnderWrites SIGKILLs the etcd leader while 32 writers
// create ConfigMaps through the balancer. Writes acknowledged after the
// kill show they go on; once the member is restarted on its data dir and
// has caught up (its revision equals the others'), every acknowledged
// ConfigMap is read back.
func killEtcdMemberUnderWrites(ctx context.Context, t *testing.T, etcd *etcdtest.Cluster, lb *serverProc, kc string) {
	t.Helper()
	cfg, err := client.ConfigFromKubeconfig(kc, "")
	require.NoError(t, err)
	cfg.Host, cfg.QPS, cfg.Burst = lb.URL(), 5000, 5000
	cl, err := client.New(cfg)
	require.NoError(t, err)
	_, err = client.For[core.Namespace](cl, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "writes"}})
	require.NoError(t, err)
	cms := client.For[core.ConfigMap](cl, "writes")

	var (
		acked  sync.Map // name -> true
		nAcked atomic.Int64
		failed atomic.Int64
		wg     sync.WaitGroup
	)
	wctx, stop := context.WithCancel(ctx)
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; wctx.Err() == nil; n++ {
				name := fmt.Sprintf("w%02d-%05d", w, n)
				rctx, cancel := context.WithTimeout(wctx, 10*time.Second)
				_, err := cms.Create(rctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name}, Data: map[string]string{"n": fmt.Sprint(n)}})
				cancel()
				if err != nil {
					failed.Add(1)
					continue
				}
				acked.Store(name, true)
				nAcked.Add(1)
			}
		}()
	}
	defer func() { stop(); wg.Wait() }()
	waitUntil(ctx, t, 30*time.Second, "200 writes before the kill", func() bool { return nAcked.Load() >= 200 })
	leader, err := etcd.Leader(ctx)
	require.NoError(t, err)
	victim := etcd.Members()[leader]
	require.NoError(t, victim.Kill())
	atKill, failedAtKill := nAcked.Load(), failed.Load()
	waitUntil(ctx, t, 30*time.Second, "500 writes acknowledged after the kill", func() bool { return nAcked.Load() >= atKill+500 })
	stop()
	wg.Wait()
	t.Logf("etcd leader (member %d) killed after %d acknowledged writes; %d more acknowledged after; %d failed (%d of them after the kill)",
		leader, atKill, nAcked.Load()-atKill, failed.Load(), failed.Load()-failedAtKill)

	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	require.NoError(t, victim.Restart(rctx))
	rev, err := etcd.WaitInSync(rctx)
	require.NoError(t, err)
	st, err := victim.Status(rctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Header.Revision, rev, "the restarted member caught up")
	t.Logf("member %d restarted on its data dir: revision %d, the cluster's %d", leader, st.Header.Revision, rev)

	list, err := cms.List(ctx, client.ListOptions{})
	require.NoError(t, err)
	have := map[string]bool{}
	for _, cm := range list.Items {
		have[cm.Name] = true
	}
	var lost []string
	acked.Range(func(k, _ any) bool {
		if !have[k.(string)] {
			lost = append(lost, k.(string))
		}
		return true
	})
	assert.Empty(t, lost, "acknowledged writes lost (of %d)", nAcked.Load())
}

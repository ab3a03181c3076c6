package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
// The faults of the API server, controller manager and agent are
// TestHABehindBalancer's.
func TestClusterOnHosts(t *testing.T) {
	requireRealNode(t)
	lbtest.Require(t)
	hs := hosttest.Start(t, hosttest.Config{Hosts: 4}) // host-4 joins later
	etcd := etcdtest.Start(t, 3)
	bin := buildMinicluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()

	gw := hs.Gateway.String()
	flags := append([]string{"--tls-san", gw}, haServerFlags...)
	var dirs, backends []string
	for i := 1; i <= 3; i++ {
		dir := t.TempDir()
		if i > 1 {
			copyPKI(t, dirs[0], dir)
		}
		p := startServer(ctx, t, bin, fmt.Sprintf("server-%d", i), dir, etcd.Endpoints(), flags...)
		dirs, backends = append(dirs, dir), append(backends, p.addr)
	}
	b := lbtest.Start(t, lbtest.Config{Backends: backends, Host: gw, CAFile: filepath.Join(dirs[0], "pki", "ca.crt"),
		ClientCertFile: healthCert(t, dirs[0])})
	lb := &serverProc{name: "balancer", addr: b.Addr()}
	kc := filepath.Join(dirs[0], "admin.kubeconfig")
	waitUntil(ctx, t, 30*time.Second, "the balancer serves /readyz", func() bool {
		out, err := lb.kubectl(ctx, kc, "get", "--raw", "/readyz")
		return err == nil && strings.TrimSpace(out) == "ok"
	})
	t.Logf("etcd, 3 servers and haproxy on %s up after %v", b.Addr(), time.Since(start).Round(time.Second))

	startHostAgents(ctx, t, bin, hs, lb, kc, dirs[0])
	t.Logf("3 agents on their hosts Ready after %v", time.Since(start).Round(time.Second))
	checkAcrossHosts(ctx, t, hs, lb, kc)
	t.Logf("pod-to-pod and ClusterIP across hosts checked after %v", time.Since(start).Round(time.Second))
	killEtcdMemberUnderWrites(ctx, t, etcd, lb, kc)
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
// InternalIP) joining through the balancer, and waits until the nodes are
// Ready with a pod CIDR each.
func startHostAgents(ctx context.Context, t *testing.T, bin string, hs *hosttest.Hosts, lb *serverProc, kc, serverDir string) {
	t.Helper()
	tokenFile := filepath.Join(serverDir, "join-token")
	for i, h := range hs.Hosts[:3] {
		name, dir := fmt.Sprintf("node-%d", i+1), t.TempDir()
		startCommand(t, name, dir, h.Command(bin, "--role", "agent", "--data-dir", dir, "--server", lb.URL(), "--node-name", name,
			"--node-ip", h.Addr.String(), "--runtime", runtimeContainerd, "--token-file", tokenFile, "--ca-cert-hash", caHashOf(t, serverDir)))
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
		out, err := lb.kubectl(ctx, kc, "exec", from, "--", "wget", "http://"+ip+"/")
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
		out, err := lb.kubectl(ctx, kc, "exec", pod, "--", "wget", url)
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

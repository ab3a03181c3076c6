package kubelet

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/internal/testenv"
)

// realNode is a kubelet over a private containerd and a CNI bridge of its
// own, registered with an in-process API server.
type realNode struct {
	tc       *testCluster
	env      *testenv.Env
	rt       *ctrd.Runtime
	net      *cni.LibCNI
	cniState string
	bridge   string
	cfg      Config
	kubelet  *Kubelet
	stop     func()
	root     testing.TB // owns the kubelet across subtests
}

func newRealNode(t testing.TB, name string) *realNode {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "kubelet integration tests need root")
	}
	env := testenv.New(t)
	tc := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(env.Namespace), ctrd.WithStateDir(env.StateDir),
		ctrd.WithLogger(quietLogger()))
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	guard, err := cni.InstallHostGuard(cni.HostGuardConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { guard.Remove() })
	subnet, bridge := freeSubnet(t)
	n := &realNode{tc: tc, env: env, rt: rt, cniState: t.TempDir(), bridge: bridge, root: t}
	n.net, err = cni.New(cni.Config{StateDir: n.cniState, PodCIDRs: []netip.Prefix{subnet}, BridgeName: bridge,
		NetworkName: "orkit-kl-" + bridge, PluginDirs: []string{testenv.CNIPluginDir}, Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(bridge); err == nil {
			_ = netlink.LinkDel(l)
		}
	})
	serving, err := tc.cp.CA.IssueServing("system:node:"+name, []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	require.NoError(t, err)
	root := t.TempDir()
	n.cfg = Config{NodeName: name, Client: tc.nodeClient(t, name), Runtime: rt, Network: n.net,
		RootDir: root, CgroupRoot: "/sys/fs/cgroup", PodCIDR: subnet.String(), Logger: quietLogger(),
		ServerAddr: "127.0.0.1:0", ServingCert: &cert, ClientCA: tc.cp.CA.Pool(),
		CrashLoopBackOff: 200 * time.Millisecond, MaxBackOff: 2 * time.Second, ResyncInterval: 5 * time.Second,
		CPUManagerPolicy: "static", ReservedCPUs: runtime.NumCPU() - 1}
	n.start(t)
	t.Cleanup(func() {
		n.cleanupPods(t)
		n.stop()
	})
	return n
}

// start runs a new Kubelet on the node's runtime, network and directories.
func (n *realNode) start(t testing.TB) {
	t.Helper()
	t = n.root
	k, err := New(n.cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = k.Run(ctx)
	}()
	n.kubelet = k
	n.stop = func() { cancel(); <-done }
	waitFor(t, 20*time.Second, "kubelet serving", func() bool { return k.ServerPort() != 0 })
}

// cleanupPods deletes the test's pods and waits for the kubelet to finish
// them, so no container, netns or cgroup outlives the test.
func (n *realNode) cleanupPods(t testing.TB) {
	ctx := context.Background()
	list, err := pods(n.tc.admin, "default").List(ctx, client.ListOptions{})
	if err != nil {
		return
	}
	for _, p := range list.Items {
		_ = pods(n.tc.admin, "default").Delete(ctx, p.Name, nil)
	}
	// The kubelet confirms a deletion after the whole teardown (containers,
	// sandbox, network, volumes, directories, cgroup).
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		l, err := pods(n.tc.admin, "default").List(ctx, client.ListOptions{})
		if err == nil && len(l.Items) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("pods left after cleanup")
}

// freeSubnet picks a 10.244.X.0/24 (X in 20–99) no route serves and an unused bridge name.
// Packages whose tests run at the same time take disjoint shares of X: minicluster 1, kubelet 20–99, cri/containerd 100–149, cni 150–199, proxy 200–249.
func freeSubnet(t testing.TB) (netip.Prefix, string) {
	t.Helper()
	for range 100 {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(20 + rand.IntN(80)), 0}), 24)
		bridge := fmt.Sprintf("okl%04x", rand.IntN(1<<16))
		if _, err := netlink.LinkByName(bridge); err == nil {
			continue
		}
		if r, err := netlink.RouteGet(p.Addr().Next().AsSlice()); err == nil && len(r) > 0 && r[0].LinkIndex > 0 && r[0].Gw == nil {
			continue
		}
		return p, bridge
	}
	t.Fatal("no free 10.244.X.0/24")
	return netip.Prefix{}, ""
}

func httpGet(url string) (string, error) {
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func (n *realNode) exec(t *testing.T, p *core.Pod, container string, cmd ...string) string {
	t.Helper()
	var id string
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			id = strings.TrimPrefix(cs.ContainerID, "cri://")
		}
	}
	require.NotEmpty(t, id, "container %s has no ID", container)
	res, err := n.rt.ExecSync(context.Background(), id, cmd, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, int32(0), res.ExitCode, "exec %v: %s %s", cmd, res.Stdout, res.Stderr)
	return string(res.Stdout)
}

func helloPod(name, node string) *core.Pod {
	p := simplePod(name, node)
	p.Spec.Containers[0].Ports = []core.ContainerPort{{Name: "http", ContainerPort: 8080}}
	return p
}

func TestRealKubelet(t *testing.T) {
	n := newRealNode(t, "real-node")
	ctx := context.Background()
	podsAPI := pods(n.tc.admin, "default")

	t.Run("running with IP, HTTP answers hostname, cgroup limits", func(t *testing.T) {
		p := helloPod("web", "real-node")
		p.Spec.Containers[0].Resources = core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("100m"), core.ResourceMemory: resource.MustParse("32Mi")},
			Limits:   core.ResourceList{core.ResourceCPU: resource.MustParse("200m"), core.ResourceMemory: resource.MustParse("64Mi")},
		}
		created, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "web", 60*time.Second, "Running with IP", func(p *core.Pod) bool {
			return running(p) && p.Status.PodIP != "" && isReady(p)
		})
		var body string
		waitFor(t, 10*time.Second, "HTTP answer", func() bool {
			body, err = httpGet("http://" + got.Status.PodIP + ":8080/")
			return err == nil
		})
		assert.Equal(t, "web", strings.TrimSpace(body))
		assert.Equal(t, core.PodQOSBurstable, got.Status.QOSClass)
		cg := filepath.Join("/sys/fs/cgroup", "cpu", "kubepods", "burstable", "pod"+string(created.UID))
		if newCgroupManager("/sys/fs/cgroup").v2 {
			cg = filepath.Join("/sys/fs/cgroup", "kubepods", "burstable", "pod"+string(created.UID))
			assert.Equal(t, "20000 100000", readTrim(filepath.Join(cg, "cpu.max")))
			assert.Equal(t, "67108864", readTrim(filepath.Join(cg, "memory.max")))
		} else {
			assert.Equal(t, "20000", readTrim(filepath.Join(cg, "cpu.cfs_quota_us")))
			assert.Equal(t, "102", readTrim(filepath.Join(cg, "cpu.shares")))
			mem := filepath.Join("/sys/fs/cgroup", "memory", "kubepods", "burstable", "pod"+string(created.UID), "memory.limit_in_bytes")
			assert.Equal(t, "67108864", readTrim(mem))
		}
	})

	t.Run("Events of the running pod, and kubectl describe lists them", func(t *testing.T) {
		app := "spec.containers{app}"
		evs := waitEvents(t, n.tc.admin, "web", 20*time.Second,
			wantEvent{"Normal", EventPulled, `Container image "orkit.local/hello:v1" already present on machine`, app},
			wantEvent{"Normal", EventCreated, "Created container: app", app},
			wantEvent{"Normal", EventStarted, "Started container app", app})
		for _, ev := range evs {
			assert.Equal(t, core.EventSource{Component: "kubelet", Host: "real-node"}, ev.Source)
			assert.Equal(t, "Pod", ev.InvolvedObject.Kind)
		}
		out := kubectl(t, n.tc.cp.AdminKubeconfig, "describe", "pod", "web")
		assert.Regexp(t, `(?s)Events:.*Pulled\s.*kubelet.*Container image "orkit.local/hello:v1" already present on machine`+
			`.*Created\s.*kubelet.*Created container: app.*Started\s.*kubelet.*Started container app`, out)
	})

	t.Run("in-place resize reaches the container's and the pod's cgroups, up and down", func(t *testing.T) {
		v2 := newCgroupManager("/sys/fs/cgroup").v2
		for _, tc := range []struct{ cpu, mem, quota, memBytes string }{
			{"300m", "96Mi", "30000", "100663296"},
			{"150m", "80Mi", "15000", "83886080"}, // down: the pod cgroup may not go below a container first (v1)
		} {
			p, err := podsAPI.Get(ctx, "web")
			require.NoError(t, err)
			p.Spec.Containers[0].Resources.Limits = core.ResourceList{core.ResourceCPU: resource.MustParse(tc.cpu), core.ResourceMemory: resource.MustParse(tc.mem)}
			_, err = podsAPI.UpdateSubresource(ctx, p, "resize")
			require.NoError(t, err)
			got := waitPod(t, n.tc.admin, "default", "web", 30*time.Second, "resized to "+tc.cpu, resized)
			assert.Equal(t, int32(0), got.Status.ContainerStatuses[0].RestartCount, "resized in place")
			pod := filepath.Join("/sys/fs/cgroup", "cpu", "kubepods", "burstable", "pod"+string(got.UID))
			if v2 {
				pod = filepath.Join("/sys/fs/cgroup", "kubepods", "burstable", "pod"+string(got.UID))
				assert.Equal(t, tc.quota+" 100000", strings.TrimSpace(n.exec(t, got, "app", "/hello", "cat", "/sys/fs/cgroup/cpu.max")))
				assert.Equal(t, tc.memBytes, strings.TrimSpace(n.exec(t, got, "app", "/hello", "cat", "/sys/fs/cgroup/memory.max")))
				assert.Equal(t, tc.quota+" 100000", readTrim(filepath.Join(pod, "cpu.max")))
				continue
			}
			assert.Equal(t, tc.quota, strings.TrimSpace(n.exec(t, got, "app", "/hello", "cat", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us")))
			assert.Equal(t, tc.memBytes, strings.TrimSpace(n.exec(t, got, "app", "/hello", "cat", "/sys/fs/cgroup/memory/memory.limit_in_bytes")))
			assert.Equal(t, tc.quota, readTrim(filepath.Join(pod, "cpu.cfs_quota_us")))
		}
	})

	t.Run("init container, emptyDir, secret volume, configMap env, postStart", func(t *testing.T) {
		_, err := client.For[core.Secret](n.tc.admin, "default").Create(ctx, &core.Secret{
			ObjectMeta: meta.ObjectMeta{Name: "creds"}, Data: map[string][]byte{"password": []byte("s3cret")}})
		require.NoError(t, err)
		_, err = client.For[core.ConfigMap](n.tc.admin, "default").Create(ctx, &core.ConfigMap{
			ObjectMeta: meta.ObjectMeta{Name: "settings"}, Data: map[string]string{"GREETING": "hola", "MODE": "test"}})
		require.NoError(t, err)
		p := helloPod("full", "real-node")
		p.Spec.Volumes = []core.Volume{
			{Name: "work", VolumeSource: core.VolumeSource{EmptyDir: &core.EmptyDirVolumeSource{}}},
			{Name: "creds", VolumeSource: core.VolumeSource{Secret: &core.SecretVolumeSource{SecretName: "creds"}}},
		}
		p.Spec.InitContainers = []core.Container{{Name: "init", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent,
			Command:      []string{"/hello", "write", "/work/index.html", "written-by-init"},
			VolumeMounts: []core.VolumeMount{{Name: "work", MountPath: "/work"}}}}
		c := &p.Spec.Containers[0]
		c.VolumeMounts = []core.VolumeMount{{Name: "work", MountPath: "/work"}, {Name: "creds", MountPath: "/etc/creds"}}
		c.EnvFrom = []core.EnvFromSource{{ConfigMapRef: &core.ConfigMapEnvSource{LocalObjectReference: core.LocalObjectReference{Name: "settings"}}}}
		c.Env = []core.EnvVar{{Name: "POD_NAME", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		c.Lifecycle = &core.Lifecycle{PostStart: &core.LifecycleHandler{Exec: &core.ExecAction{Command: []string{"/hello", "write", "/work/poststart", "hooked"}}}}
		_, err = podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "full", 60*time.Second, "Running", func(p *core.Pod) bool { return running(p) && isReady(p) })
		require.Len(t, got.Status.InitContainerStatuses, 1)
		require.NotNil(t, got.Status.InitContainerStatuses[0].State.Terminated)
		assert.Equal(t, "written-by-init", n.exec(t, got, "app", "/hello", "cat", "/work/index.html"))
		assert.Equal(t, "s3cret", n.exec(t, got, "app", "/hello", "cat", "/etc/creds/password"))
		full, err := podsAPI.Get(ctx, "full")
		require.NoError(t, err)
		assert.True(t, isMountPoint(filepath.Join(n.cfg.RootDir, "pods", string(full.UID), "volumes", pluginSecret, "creds")),
			"secret volume is a tmpfs")
		env := n.exec(t, got, "app", "/hello", "env")
		assert.Contains(t, env, "GREETING=hola")
		assert.Contains(t, env, "POD_NAME=full")
		assert.Equal(t, "hooked", n.exec(t, got, "app", "/hello", "cat", "/work/poststart"))

		// A changed Secret reaches the volume in place.
		s, err := client.For[core.Secret](n.tc.admin, "default").Get(ctx, "creds")
		require.NoError(t, err)
		s.Data["password"] = []byte("rotated")
		_, err = client.For[core.Secret](n.tc.admin, "default").Update(ctx, s)
		require.NoError(t, err)
		waitFor(t, 20*time.Second, "secret rotated in the volume", func() bool {
			res, err := n.rt.ExecSync(ctx, strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://"),
				[]string{"/hello", "cat", "/etc/creds/password"}, 5*time.Second)
			return err == nil && string(res.Stdout) == "rotated"
		})
	})

	t.Run("stdin: true keeps stdin open; stringData reaches the container", func(t *testing.T) {
		// A Secret written with stringData, as Helm charts write them.
		_, err := client.For[core.Secret](n.tc.admin, "default").Create(ctx, &core.Secret{
			ObjectMeta: meta.ObjectMeta{Name: "strings"}, StringData: map[string]string{"token": "from-stringData"}})
		require.NoError(t, err)
		p := simplePod("stdin", "real-node")
		c := &p.Spec.Containers[0]
		c.Command, c.Stdin = []string{"/hello", "cat", "-"}, true
		c.Env = []core.EnvVar{{Name: "TOKEN", ValueFrom: &core.EnvVarSource{SecretKeyRef: &core.SecretKeySelector{
			LocalObjectReference: core.LocalObjectReference{Name: "strings"}, Key: "token"}}}}
		_, err = podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "stdin", 60*time.Second, "Running", running)
		assert.Contains(t, n.exec(t, got, "app", "/hello", "env"), "TOKEN=from-stringData")
		// cat reads stdin until EOF: it is still there to echo what an
		// attach writes, never restarted.
		id := strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://")
		require.NoError(t, n.rt.AttachStdin(ctx, id, strings.NewReader("typed on stdin\n")))
		waitFor(t, 20*time.Second, "the attached line in the log", func() bool {
			rc, err := n.tc.admin.GetLogs(ctx, "default", "stdin", client.LogOptions{})
			if err != nil {
				return false
			}
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			return strings.Contains(string(b), "typed on stdin")
		})
		got, err = podsAPI.Get(ctx, "stdin")
		require.NoError(t, err)
		assert.Equal(t, core.PodRunning, got.Status.Phase)
		assert.Zero(t, got.Status.ContainerStatuses[0].RestartCount)
	})

	t.Run("downward API resources: env defaults to its container, volume divisor, allocatable as limit", func(t *testing.T) {
		p := helloPod("downward", "real-node")
		c := &p.Spec.Containers[0]
		c.Resources = core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("250m"), core.ResourceMemory: resource.MustParse("32Mi")},
			Limits:   core.ResourceList{core.ResourceMemory: resource.MustParse("64Mi")},
		}
		ref := func(container, res, div string) *core.ResourceFieldSelector {
			r := &core.ResourceFieldSelector{ContainerName: container, Resource: res}
			if div != "" {
				r.Divisor = resource.MustParse(div)
			}
			return r
		}
		c.Env = []core.EnvVar{
			{Name: "CPU_REQUEST", ValueFrom: &core.EnvVarSource{ResourceFieldRef: ref("", "requests.cpu", "")}},
			{Name: "MEMORY_LIMIT", ValueFrom: &core.EnvVarSource{ResourceFieldRef: ref("", "limits.memory", "0")}},
			{Name: "CPU_LIMIT", ValueFrom: &core.EnvVarSource{ResourceFieldRef: ref("", "limits.cpu", "1m")}},
		}
		p.Spec.Volumes = []core.Volume{{Name: "podinfo", VolumeSource: core.VolumeSource{DownwardAPI: &core.DownwardAPIVolumeSource{
			Items: []core.DownwardAPIVolumeFile{
				{Path: "cpu_request", ResourceFieldRef: ref("app", "requests.cpu", "1m")},
				{Path: "memory_limit", ResourceFieldRef: ref("app", "limits.memory", "1Mi")},
			}}}}}
		c.VolumeMounts = []core.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}}
		_, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "downward", 60*time.Second, "Running", running)
		node, err := client.For[core.Node](n.tc.admin, "").Get(ctx, "real-node")
		require.NoError(t, err)
		allocCPU := node.Status.Allocatable[core.ResourceCPU]
		env := n.exec(t, got, "app", "/hello", "env")
		assert.Regexp(t, `(?m)^CPU_REQUEST=1$`, env)
		assert.Regexp(t, `(?m)^MEMORY_LIMIT=67108864$`, env)
		assert.Regexp(t, fmt.Sprintf(`(?m)^CPU_LIMIT=%d$`, allocCPU.MilliValue()), env, "no cpu limit: the node's allocatable")
		assert.Equal(t, "250", n.exec(t, got, "app", "/hello", "cat", "/etc/podinfo/cpu_request"))
		assert.Equal(t, "64", n.exec(t, got, "app", "/hello", "cat", "/etc/podinfo/memory_limit"))
	})

	t.Run("env status.podIP, managed /etc/hosts with hostAliases, $(VAR) in args", func(t *testing.T) {
		p := helloPod("ipenv", "real-node")
		p.Spec.HostAliases = []core.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo.remote"}}}
		c := &p.Spec.Containers[0]
		c.Env = []core.EnvVar{
			{Name: "POD_IP", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "POD_IPS", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: "status.podIPs"}}},
		}
		_, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "ipenv", 60*time.Second, "Running with IP", func(p *core.Pod) bool {
			return running(p) && p.Status.PodIP != ""
		})
		env := n.exec(t, got, "app", "/hello", "env")
		assert.Regexp(t, `(?m)^POD_IP=`+regexp.QuoteMeta(got.Status.PodIP)+`$`, env, "the sandbox's IP, not the API object's (empty then)")
		assert.Regexp(t, `(?m)^POD_IPS=`+regexp.QuoteMeta(got.Status.PodIP)+`$`, env)
		hosts := n.exec(t, got, "app", "/hello", "cat", "/etc/hosts")
		assert.True(t, strings.HasPrefix(hosts, "# Kubernetes-managed hosts file.\n"), hosts)
		assert.Contains(t, hosts, got.Status.PodIP+"\tipenv\n")
		assert.Contains(t, hosts, "123.45.67.89\tfoo.remote\n")
	})

	t.Run("termination messages: file as a non-root user, log tail on failure", func(t *testing.T) {
		uid := int64(1000)
		p := simplePod("termmsg", "real-node")
		p.Spec.RestartPolicy = core.RestartPolicyNever
		p.Spec.Containers[0].Command = []string{"/hello", "write", "/dev/termination-custom-log", "DONE"}
		p.Spec.Containers[0].TerminationMessagePath = "/dev/termination-custom-log"
		p.Spec.Containers[0].SecurityContext = &core.SecurityContext{RunAsUser: &uid}
		f := simplePod("termlog", "real-node")
		f.Spec.RestartPolicy = core.RestartPolicyNever
		f.Spec.Containers[0].Command = []string{"/hello", "cat", "/nonexistent"}
		f.Spec.Containers[0].TerminationMessagePolicy = core.TerminationMessageFallbackToLogsOnError
		for _, pod := range []*core.Pod{p, f} {
			_, err := podsAPI.Create(ctx, pod)
			require.NoError(t, err)
		}
		terminated := func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Terminated != nil
		}
		got := waitPod(t, n.tc.admin, "default", "termmsg", 60*time.Second, "terminated", terminated)
		assert.Equal(t, "DONE", got.Status.ContainerStatuses[0].State.Terminated.Message)
		got = waitPod(t, n.tc.admin, "default", "termlog", 60*time.Second, "terminated", terminated)
		assert.Contains(t, got.Status.ContainerStatuses[0].State.Terminated.Message, "/nonexistent")
	})

	t.Run("missing configMap reference is CreateContainerConfigError", func(t *testing.T) {
		p := helloPod("badref", "real-node")
		p.Spec.Containers[0].EnvFrom = []core.EnvFromSource{{ConfigMapRef: &core.ConfigMapEnvSource{LocalObjectReference: core.LocalObjectReference{Name: "nope"}}}}
		_, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		waitPod(t, n.tc.admin, "default", "badref", 30*time.Second, "CreateContainerConfigError", func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Waiting != nil &&
				p.Status.ContainerStatuses[0].State.Waiting.Reason == ReasonCreateContainerConfigError
		})
	})

	t.Run("failing liveness restarts the container", func(t *testing.T) {
		p := helloPod("liveness", "real-node")
		c := &p.Spec.Containers[0]
		c.Env = []core.EnvVar{{Name: "HELLO_FAIL_HEALTH", Value: "yes"}}
		c.LivenessProbe = &core.Probe{ProbeHandler: core.ProbeHandler{HTTPGet: &core.HTTPGetAction{Path: "/healthz", Port: meta.FromString("http")}},
			PeriodSeconds: 1, FailureThreshold: 2, TimeoutSeconds: 1}
		_, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		waitPod(t, n.tc.admin, "default", "liveness", 60*time.Second, "restartCount >= 1", func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1
		})
		app := "spec.containers{app}"
		waitEvents(t, n.tc.admin, "liveness", 20*time.Second,
			wantEvent{"Normal", EventStarted, "Started container app", app},
			wantEvent{"Warning", EventUnhealthy, "Liveness probe failed: HTTP probe failed with statuscode: 500", app},
			wantEvent{"Normal", EventKilling, "Container app failed liveness probe, will be restarted", app})
		waitFor(t, 20*time.Second, "the restart counted on the Started Event", func() bool {
			for _, ev := range podEvents(t, n.tc.admin, "liveness") {
				if ev.Reason == EventStarted && ev.Count >= 2 {
					return true
				}
			}
			return false
		})
		out := kubectl(t, n.tc.cp.AdminKubeconfig, "describe", "pod", "liveness")
		// kubectl sorts by lastTimestamp: repeats move an Event down.
		assert.Regexp(t, `(?s)Events:.*Unhealthy\s[^\n]*kubelet\s+Liveness probe failed`, out)
		assert.Regexp(t, `(?s)Events:.*Killing\s[^\n]*kubelet\s+Container app failed liveness probe, will be restarted`, out)
	})

	t.Run("readiness drives Ready", func(t *testing.T) {
		p := helloPod("ready", "real-node")
		c := &p.Spec.Containers[0]
		c.Env = []core.EnvVar{{Name: "HELLO_FAIL_HEALTH", Value: "/tmp/unready"}}
		c.ReadinessProbe = &core.Probe{ProbeHandler: core.ProbeHandler{HTTPGet: &core.HTTPGetAction{Path: "/healthz", Port: meta.FromInt(8080)}},
			PeriodSeconds: 1, FailureThreshold: 1}
		_, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "ready", 60*time.Second, "Ready", isReady)
		n.exec(t, got, "app", "/hello", "write", "/tmp/unready", "x")
		got = waitPod(t, n.tc.admin, "default", "ready", 30*time.Second, "not Ready", func(p *core.Pod) bool { return !isReady(p) })
		assert.Equal(t, core.PodRunning, got.Status.Phase)
	})

	t.Run("logs through the API server", func(t *testing.T) {
		waitFor(t, 20*time.Second, "log line", func() bool {
			rc, err := n.tc.admin.GetLogs(ctx, "default", "web", client.LogOptions{})
			if err != nil {
				return false
			}
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			return strings.Contains(string(b), "hello: listening on")
		})
		rc, err := n.tc.admin.GetLogs(ctx, "default", "web", client.LogOptions{TailLines: 1, Timestamps: true})
		require.NoError(t, err)
		b, _ := io.ReadAll(rc)
		rc.Close()
		assert.Equal(t, 1, strings.Count(string(b), "\n"), "%q", b)
		_, err = time.Parse(time.RFC3339Nano, strings.Fields(string(b))[0])
		assert.NoError(t, err)

		// kubectl logs goes the same way.
		if path, err := exec.LookPath("kubectl"); err == nil {
			out, err := exec.Command(path, "--kubeconfig", n.tc.cp.AdminKubeconfig, "logs", "web", "--tail=5").CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), "GET / HTTP/1.1")
		}

		// The restarted liveness pod has a previous instance.
		rc, err = n.tc.admin.GetLogs(ctx, "default", "liveness", client.LogOptions{Previous: true})
		require.NoError(t, err)
		b, _ = io.ReadAll(rc)
		rc.Close()
		assert.Contains(t, string(b), "hello: listening on")
		assert.Contains(t, string(b), "GET /healthz", "the failing probes reached the previous instance")

		// follow streams lines as they come: a GET to the pod shows up.
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		rc, err = n.tc.admin.GetLogs(fctx, "default", "web", client.LogOptions{Follow: true, TailLines: 0})
		require.NoError(t, err)
		defer rc.Close()
		web, err := podsAPI.Get(ctx, "web")
		require.NoError(t, err)
		_, err = httpGet("http://" + web.Status.PodIP + ":8080/followed")
		require.NoError(t, err)
		buf := make([]byte, 4096)
		var got strings.Builder
		for !strings.Contains(got.String(), "/followed") {
			n, err := rc.Read(buf)
			got.Write(buf[:n])
			require.NoError(t, err, "stream ended before the line: %q", got.String())
		}
	})

	t.Run("static CPU manager pins a Guaranteed pod", func(t *testing.T) {
		if newCgroupManager("/sys/fs/cgroup").v2 {
			t.Skip("checks the cgroup v1 cpuset hierarchy")
		}
		p := helloPod("pinned", "real-node")
		rl := core.ResourceList{core.ResourceCPU: resource.MustParse("1"), core.ResourceMemory: resource.MustParse("64Mi")}
		p.Spec.Containers[0].Resources = core.ResourceRequirements{Requests: rl, Limits: rl}
		created, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "pinned", 60*time.Second, "Running", running)
		assert.Equal(t, core.PodQOSGuaranteed, got.Status.QOSClass)
		id := strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://")
		want := fmt.Sprint(runtime.NumCPU() - 1)
		// runc names the container's cgroup after a digest of its ID: find
		// the pod's child cgroup that holds the container's process.
		var pinned []string
		children, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup/cpuset", PodCgroupName(created), "*", "cpuset.cpus"))
		for _, f := range children {
			pinned = append(pinned, readTrim(f))
		}
		assert.Contains(t, pinned, want, "the container cgroup of the pod is pinned")
		st, err := n.rt.ContainerStatus(ctx, id)
		require.NoError(t, err)
		require.NotNil(t, st.Resources)
		assert.Equal(t, want, st.Resources.CpusetCpus)
		require.NoError(t, podsAPI.Delete(ctx, "pinned", nil))
		waitFor(t, 30*time.Second, "pinned pod deleted", func() bool {
			_, err := podsAPI.Get(ctx, "pinned")
			return apierrors.IsNotFound(err)
		})
	})

	t.Run("kubelet restart leaves containers untouched", func(t *testing.T) {
		before, err := podsAPI.Get(ctx, "web")
		require.NoError(t, err)
		n.stop()
		n.start(t)
		// Wait until the new kubelet has adopted the pod, then compare.
		waitFor(t, 20*time.Second, "new kubelet adopted the pod", func() bool {
			n.kubelet.mu.Lock()
			defer n.kubelet.mu.Unlock()
			w := n.kubelet.workers[before.UID]
			return w != nil && w.finishedSync()
		})
		ctrs, err := n.rt.ListContainers(ctx, cri.ContainerFilter{LabelSelector: map[string]string{labelPodUID: string(before.UID)}})
		require.NoError(t, err)
		assert.Len(t, ctrs, 1, "no new container")
		after := waitPod(t, n.tc.admin, "default", "web", 10*time.Second, "running", running)
		require.Len(t, after.Status.ContainerStatuses, 1)
		assert.Equal(t, before.Status.ContainerStatuses[0].ContainerID, after.Status.ContainerStatuses[0].ContainerID)
		assert.Equal(t, before.Status.ContainerStatuses[0].RestartCount, after.Status.ContainerStatuses[0].RestartCount)
		assert.Equal(t, before.Status.PodIP, after.Status.PodIP)
		body, err := httpGet("http://" + after.Status.PodIP + ":8080/")
		require.NoError(t, err)
		assert.Equal(t, "web", strings.TrimSpace(body))
	})

	t.Run("delete runs preStop and leaves nothing behind", func(t *testing.T) {
		hostDir := t.TempDir()
		p := helloPod("doomed", "real-node")
		grace := int64(10)
		p.Spec.TerminationGracePeriodSeconds = &grace
		dirType := core.HostPathDirectory
		p.Spec.Volumes = []core.Volume{
			{Name: "host", VolumeSource: core.VolumeSource{HostPath: &core.HostPathVolumeSource{Path: hostDir, Type: &dirType}}},
			{Name: "mem", VolumeSource: core.VolumeSource{EmptyDir: &core.EmptyDirVolumeSource{Medium: core.StorageMediumMemory,
				SizeLimit: ptr(resource.MustParse("8Mi"))}}},
		}
		c := &p.Spec.Containers[0]
		c.VolumeMounts = []core.VolumeMount{{Name: "host", MountPath: "/host"}, {Name: "mem", MountPath: "/mem"}}
		c.Lifecycle = &core.Lifecycle{PreStop: &core.LifecycleHandler{Exec: &core.ExecAction{Command: []string{"/hello", "write", "/host/prestop", "ran"}}}}
		created, err := podsAPI.Create(ctx, p)
		require.NoError(t, err)
		got := waitPod(t, n.tc.admin, "default", "doomed", 60*time.Second, "Running", running)
		uid := string(created.UID)
		podDir := filepath.Join(n.cfg.RootDir, "pods", uid)
		memDir := filepath.Join(podDir, "volumes", pluginEmptyDir, "mem")
		assert.True(t, isMountPoint(memDir), "memory emptyDir is a tmpfs")
		var fs syscall.Statfs_t
		require.NoError(t, syscall.Statfs(memDir, &fs))
		assert.Equal(t, int64(8<<20), int64(fs.Blocks)*fs.Bsize, "tmpfs sized by sizeLimit")
		sbs, err := n.rt.ListPodSandbox(ctx, cri.PodSandboxFilter{LabelSelector: map[string]string{labelPodUID: uid}})
		require.NoError(t, err)
		require.Len(t, sbs, 1)
		sst, err := n.rt.PodSandboxStatus(ctx, sbs[0].ID)
		require.NoError(t, err)
		netns := sst.NetworkNamespacePath
		require.FileExists(t, netns)
		ipFile := filepath.Join(n.cniState, "ipam", "orkit-kl-"+n.bridge, got.Status.PodIP)
		require.FileExists(t, ipFile)

		start := time.Now()
		require.NoError(t, podsAPI.Delete(ctx, "doomed", nil))
		waitFor(t, 30*time.Second, "pod deleted", func() bool {
			_, err := podsAPI.Get(ctx, "doomed")
			return apierrors.IsNotFound(err)
		})
		assert.Less(t, time.Since(start), time.Duration(grace)*time.Second+5*time.Second)
		assert.Equal(t, "ran", readTrim(filepath.Join(hostDir, "prestop")), "preStop ran")
		_, err = n.rt.ContainerStatus(ctx, strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://"))
		assert.ErrorIs(t, err, cri.ErrNotFound)
		assert.NoFileExists(t, netns)
		assert.NoFileExists(t, ipFile)
		assert.NoDirExists(t, podDir)
		assert.Empty(t, mountsUnder(podDir))
		for _, ctrl := range []string{"cpu", "memory", "pids", "cpuset", "devices", "freezer", "blkio", "unified"} {
			assert.NoDirExists(t, filepath.Join("/sys/fs/cgroup", ctrl, PodCgroupName(created)))
		}
		assert.NoDirExists(t, filepath.Join("/sys/fs/cgroup", PodCgroupName(created)))
	})
}

func ptr[T any](v T) *T { return &v }

// kubectl runs the real kubectl with kubeconfig and returns its output; a
// missing kubectl skips the test (fails it under CI=true).
func kubectl(t testing.TB, kubeconfig string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		testenv.Unavailable(t, "kubectl not found")
	}
	out, err := exec.Command(path, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	require.NoError(t, err, "kubectl %v: %s", args, out)
	return string(out)
}

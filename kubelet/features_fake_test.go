package kubelet

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

func waitingReason(p *core.Pod) string {
	if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Waiting == nil {
		return ""
	}
	return p.Status.ContainerStatuses[0].State.Waiting.Reason
}

func TestFakeImagePullBackOff(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-img", func(c *Config) {
		c.Runtime = mustFake(t, fake.WithRegistry(func(string) bool { return false }))
		c.ImagePullBackOff = 300 * time.Millisecond
		c.MaxBackOff = 5 * time.Second
	})
	ctx := context.Background()
	p := simplePod("pull", "node-img")
	p.Spec.Containers[0].Image = "registry.invalid/nothing:v1"
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	seen := map[string]bool{}
	waitPod(t, tc.admin, "default", "pull", 15*time.Second, "ErrImagePull and ImagePullBackOff", func(p *core.Pod) bool {
		seen[waitingReason(p)] = true
		return seen[ReasonErrImagePull] && seen[ReasonImagePullBackOff]
	})
	assert.Equal(t, core.PodPending, func() core.PodPhase {
		p, _ := pods(tc.admin, "default").Get(ctx, "pull")
		return p.Status.Phase
	}())
	assert.GreaterOrEqual(t, rt.Calls("PullImage"), 1)

	never := simplePod("never", "node-img")
	never.Spec.Containers[0].Image = "registry.invalid/absent:v1"
	never.Spec.Containers[0].ImagePullPolicy = core.PullNever
	_, err = pods(tc.admin, "default").Create(ctx, never)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "never", 10*time.Second, "ErrImageNeverPull", func(p *core.Pod) bool {
		return waitingReason(p) == ReasonErrImageNeverPull
	})
}

func TestFakeImagePullSecrets(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-auth", func(c *Config) {
		c.Runtime = mustFake(t, fake.WithRegistryAuth("user", "pass"))
	})
	ctx := context.Background()
	_, err := client.For[core.Secret](tc.admin, "default").Create(ctx, &core.Secret{ObjectMeta: meta.ObjectMeta{Name: "regcred"},
		Type: "kubernetes.io/dockerconfigjson",
		Data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":{"127.0.0.1:5000":{"username":"user","password":"pass"}}}`)}})
	require.NoError(t, err)
	p := simplePod("private", "node-auth")
	p.Spec.Containers[0].Image = "127.0.0.1:5000/private/app:v1"
	p.Spec.ImagePullSecrets = []core.LocalObjectReference{{Name: "regcred"}}
	_, err = pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "private", 10*time.Second, "Running", running)
}

func mustFake(t testing.TB, opts ...fake.Option) *fake.Runtime {
	rt, err := fake.New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	return rt
}

func TestFakeConfigMapVolumeUpdatesInPlace(t *testing.T) {
	tc := startCluster(t)
	root := t.TempDir()
	tc.startFakeKubelet(t, "node-cm", func(c *Config) { c.RootDir = root; c.ResyncInterval = 200 * time.Millisecond })
	ctx := context.Background()
	cms := client.For[core.ConfigMap](tc.admin, "default")
	_, err := cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "conf"}, Data: map[string]string{"a": "1", "b": "2"}})
	require.NoError(t, err)
	mode := int32(0o600)
	p := simplePod("cm", "node-cm")
	p.Spec.Volumes = []core.Volume{{Name: "conf", VolumeSource: core.VolumeSource{ConfigMap: &core.ConfigMapVolumeSource{
		LocalObjectReference: core.LocalObjectReference{Name: "conf"}, DefaultMode: &mode,
		Items: []core.KeyToPath{{Key: "a", Path: "dir/a.txt"}}}}}}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "conf", MountPath: "/conf"}}
	created, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "cm", 10*time.Second, "Running", running)
	dir := filepath.Join(root, "pods", string(created.UID), "volumes", pluginConfigMap, "conf")
	b, err := os.ReadFile(filepath.Join(dir, "dir", "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "1", string(b))
	fi, err := os.Stat(filepath.Join(dir, "dir", "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.NoFileExists(t, filepath.Join(dir, "b"))

	cm, err := cms.Get(ctx, "conf")
	require.NoError(t, err)
	cm.Data["a"] = "changed"
	_, err = cms.Update(ctx, cm)
	require.NoError(t, err)
	waitFor(t, 10*time.Second, "file updated", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "dir", "a.txt"))
		return err == nil && string(b) == "changed"
	})
	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "cm", nil))
	waitFor(t, 10*time.Second, "pod dir removed", func() bool {
		_, err := os.Stat(filepath.Join(root, "pods", string(created.UID)))
		return os.IsNotExist(err)
	})
}

func TestFakeLocalPersistentVolume(t *testing.T) {
	tc := startCluster(t)
	// The volume's directory does not exist yet: DirectoryOrCreate (the
	// local-path provisioner's volumes) makes the kubelet create it.
	root, data := t.TempDir(), filepath.Join(t.TempDir(), "pvc-1_default_claim")
	_, rt := tc.startFakeKubelet(t, "node-pv", func(c *Config) { c.RootDir = root })
	ctx := context.Background()
	dirOrCreate := core.HostPathDirectoryOrCreate
	_, err := client.For[core.PersistentVolume](tc.admin, "").Create(ctx, &core.PersistentVolume{
		ObjectMeta: meta.ObjectMeta{Name: "local-pv"},
		Spec: core.PersistentVolumeSpec{Capacity: core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
			PersistentVolumeSource: core.PersistentVolumeSource{HostPath: &core.HostPathVolumeSource{Path: data, Type: &dirOrCreate}}}})
	require.NoError(t, err)
	_, err = client.For[core.PersistentVolumeClaim](tc.admin, "default").Create(ctx, &core.PersistentVolumeClaim{
		ObjectMeta: meta.ObjectMeta{Name: "claim"},
		Spec: core.PersistentVolumeClaimSpec{VolumeName: "local-pv", AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
			Resources: core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	p := simplePod("pvc", "node-pv")
	p.Spec.Volumes = []core.Volume{{Name: "data", VolumeSource: core.VolumeSource{PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}}}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "data", MountPath: "/data"}}
	_, err = pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "pvc", 10*time.Second, "Running", running)
	st, err := rt.ContainerStatus(ctx, strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://"))
	require.NoError(t, err)
	assert.Contains(t, st.Mounts, cri.Mount{ContainerPath: "/data", HostPath: data})
	fi, err := os.Stat(data)
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "the volume's directory was created on the node")

	// A claim that does not exist keeps the pod's containers from starting.
	missing := simplePod("nopvc", "node-pv")
	missing.Spec.Volumes = []core.Volume{{Name: "data", VolumeSource: core.VolumeSource{PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: "absent"}}}}
	missing.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "data", MountPath: "/data"}}
	_, err = pods(tc.admin, "default").Create(ctx, missing)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "nopvc", 10*time.Second, "ContainerCreating", func(p *core.Pod) bool {
		return waitingReason(p) == ReasonContainerCreating && p.Status.Phase == core.PodPending
	})
}

func TestFakeStaticCPUManager(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-cpu", func(c *Config) {
		c.CPUManagerPolicy = "static"
		c.ReservedCPUs = 1
		c.Capacity = core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourceMemory: resource.MustParse("4Gi")}
	})
	ctx := context.Background()
	rl := core.ResourceList{core.ResourceCPU: resource.MustParse("2"), core.ResourceMemory: resource.MustParse("64Mi")}
	p := simplePod("pinned", "node-cpu")
	p.Spec.Containers[0].Resources = core.ResourceRequirements{Requests: rl, Limits: rl}
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "pinned", 10*time.Second, "Running", running)
	assert.Equal(t, core.PodQOSGuaranteed, got.Status.QOSClass)
	st, err := rt.ContainerStatus(ctx, strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://"))
	require.NoError(t, err)
	require.NotNil(t, st.Resources)
	assert.Equal(t, "1,2", st.Resources.CpusetCpus)
	assert.Equal(t, 1, rt.Calls("UpdateContainerResources"))

	shared := simplePod("shared", "node-cpu")
	_, err = pods(tc.admin, "default").Create(ctx, shared)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "shared", 10*time.Second, "Running", running)
	assert.Equal(t, 1, rt.Calls("UpdateContainerResources"), "a BestEffort pod gets no exclusive CPUs")
}

func TestFakeGraceKillsStubbornContainer(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-kill", nil)
	ctx := context.Background()
	p := simplePod("stubborn", "node-kill")
	grace := int64(1)
	p.Spec.TerminationGracePeriodSeconds = &grace
	p.Spec.Containers[0].Command = []string{"/hello", "sleep-ignore-term", "1h"}
	created, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "stubborn", 10*time.Second, "Running", running)
	start := time.Now()
	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "stubborn", nil))
	waitFor(t, 15*time.Second, "pod gone", func() bool {
		_, err := pods(tc.admin, "default").Get(ctx, "stubborn")
		return apierrors.IsNotFound(err)
	})
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 900*time.Millisecond, "SIGKILL waits for the grace period")
	ctrs, err := rt.ListContainers(ctx, cri.ContainerFilter{LabelSelector: map[string]string{labelPodUID: string(created.UID)}})
	require.NoError(t, err)
	assert.Empty(t, ctrs)
}

func TestFakeRestartAdoptsAndCleansOrphans(t *testing.T) {
	tc := startCluster(t)
	rt := mustFake(t)
	ctx := context.Background()
	start := func() func() {
		k, err := New(Config{NodeName: "node-r", Client: tc.nodeClient(t, "node-r"), Runtime: rt, Logger: quietLogger(),
			ResyncInterval: 200 * time.Millisecond})
		require.NoError(t, err)
		kctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = k.Run(kctx) }()
		return func() { cancel(); <-done }
	}
	stop := start()
	_, err := pods(tc.admin, "default").Create(ctx, simplePod("keep", "node-r"))
	require.NoError(t, err)
	before := waitPod(t, tc.admin, "default", "keep", 10*time.Second, "Running", running)
	stop()

	// An orphan: a sandbox of a pod the API server does not know.
	orphan, err := rt.RunPodSandbox(ctx, cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "ghost", Namespace: "default", UID: "ghost-uid"},
		Labels: map[string]string{labelPodUID: "ghost-uid"}})
	require.NoError(t, err)
	created := rt.Calls("CreateContainer")

	stop = start()
	defer stop()
	waitFor(t, 10*time.Second, "orphan removed", func() bool {
		_, err := rt.PodSandboxStatus(ctx, orphan)
		return err != nil
	})
	after := waitPod(t, tc.admin, "default", "keep", 10*time.Second, "Running", running)
	assert.Equal(t, before.Status.ContainerStatuses[0].ContainerID, after.Status.ContainerStatuses[0].ContainerID)
	assert.Equal(t, before.Status.PodIP, after.Status.PodIP)
	assert.Equal(t, created, rt.Calls("CreateContainer"), "no container was created again")
}

func TestFakeHooksAndExecProbes(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-hooks", nil)
	ctx := context.Background()
	exec := func(cmd ...string) core.ProbeHandler { return core.ProbeHandler{Exec: &core.ExecAction{Command: cmd}} }
	cases := []struct {
		name  string
		setup func(c *core.Container)
		check func(p *core.Pod) bool
	}{
		{"failing postStart kills and restarts", func(c *core.Container) {
			c.Lifecycle = &core.Lifecycle{PostStart: &core.LifecycleHandler{Exec: &core.ExecAction{Command: []string{"/hello", "exit", "1"}}}}
		}, func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1
		}},
		{"failing exec liveness restarts", func(c *core.Container) {
			c.LivenessProbe = &core.Probe{ProbeHandler: exec("/hello", "exit", "1"), PeriodSeconds: 1, FailureThreshold: 1}
		}, func(p *core.Pod) bool {
			return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1
		}},
		{"failing exec readiness keeps the pod unready", func(c *core.Container) {
			c.ReadinessProbe = &core.Probe{ProbeHandler: exec("/hello", "exit", "1"), PeriodSeconds: 1, FailureThreshold: 1}
		}, func(p *core.Pod) bool {
			_, cond := core.GetPodCondition(&p.Status, core.PodReady)
			return running(p) && cond != nil && cond.Status == meta.ConditionFalse && cond.Reason == "ContainersNotReady"
		}},
		{"startup probe gates readiness", func(c *core.Container) {
			c.StartupProbe = &core.Probe{ProbeHandler: exec("/hello", "exit", "0"), PeriodSeconds: 1, SuccessThreshold: 1}
		}, func(p *core.Pod) bool {
			return isReady(p) && p.Status.ContainerStatuses[0].Started != nil && *p.Status.ContainerStatuses[0].Started
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := "hooks-" + string(rune('a'+i))
			p := simplePod(name, "node-hooks")
			c.setup(&p.Spec.Containers[0])
			_, err := pods(tc.admin, "default").Create(ctx, p)
			require.NoError(t, err)
			waitPod(t, tc.admin, "default", name, 15*time.Second, c.name, c.check)
		})
	}
}

func TestFakeDownwardAPIVolume(t *testing.T) {
	tc := startCluster(t)
	root := t.TempDir()
	tc.startFakeKubelet(t, "node-dw", func(c *Config) { c.RootDir = root })
	ctx := context.Background()
	p := simplePod("dw", "node-dw")
	p.Labels = map[string]string{"app": "web", "tier": "front"}
	p.Spec.Volumes = []core.Volume{{Name: "info", VolumeSource: core.VolumeSource{DownwardAPI: &core.DownwardAPIVolumeSource{
		Items: []core.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &core.ObjectFieldSelector{FieldPath: "metadata.labels"}},
			{Path: "name", FieldRef: &core.ObjectFieldSelector{FieldPath: "metadata.name"}},
			{Path: "app", FieldRef: &core.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}},
		}}}}}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "info", MountPath: "/info"}}
	created, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "dw", 10*time.Second, "Running", running)
	dir := filepath.Join(root, "pods", string(created.UID), "volumes", pluginDownwardAPI, "info")
	assert.Equal(t, "app=\"web\"\ntier=\"front\"", readTrim(filepath.Join(dir, "labels")))
	assert.Equal(t, "dw", readTrim(filepath.Join(dir, "name")))
	assert.Equal(t, "web", readTrim(filepath.Join(dir, "app")))
}

// recordingProber records the network actions and fails those listed.
type recordingProber struct {
	mu    sync.Mutex
	calls []string
	fail  map[string]bool
}

func (p *recordingProber) record(s string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, s)
	if p.fail[s] {
		return fmt.Errorf("%s failed", s)
	}
	return nil
}

func (p *recordingProber) HTTPGet(_ context.Context, url string, h http.Header, _ time.Duration) error {
	return p.record("GET " + url + " " + h.Get("X-Probe"))
}

func (p *recordingProber) TCP(_ context.Context, addr string, _ time.Duration) error {
	return p.record("TCP " + addr)
}

func (p *recordingProber) seen(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.calls, s)
}

func TestFakeNetworkHooksAndProbes(t *testing.T) {
	tc := startCluster(t)
	pr := &recordingProber{fail: map[string]bool{}}
	tc.startFakeKubelet(t, "node-net", func(c *Config) { c.Prober = pr })
	ctx := context.Background()
	p := simplePod("netprobe", "node-net")
	c := &p.Spec.Containers[0]
	c.Ports = []core.ContainerPort{{Name: "http", ContainerPort: 8080}}
	c.Lifecycle = &core.Lifecycle{
		PostStart: &core.LifecycleHandler{HTTPGet: &core.HTTPGetAction{Path: "started", Port: meta.FromString("http"),
			HTTPHeaders: []core.HTTPHeader{{Name: "X-Probe", Value: "post"}}}},
		PreStop: &core.LifecycleHandler{HTTPGet: &core.HTTPGetAction{Path: "/stop", Port: meta.FromInt(8080)}},
	}
	c.ReadinessProbe = &core.Probe{ProbeHandler: core.ProbeHandler{TCPSocket: &core.TCPSocketAction{Port: meta.FromInt(9090)}}, PeriodSeconds: 1}
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "netprobe", 10*time.Second, "Ready", isReady)
	ip := got.Status.PodIP
	assert.True(t, pr.seen("GET http://"+ip+":8080/started post"), "postStart httpGet to the pod IP and named port")
	assert.True(t, pr.seen("TCP "+ip+":9090"), "tcpSocket readiness")

	// The readiness probe starts failing: Ready goes False.
	pr.mu.Lock()
	pr.fail["TCP "+ip+":9090"] = true
	pr.mu.Unlock()
	waitPod(t, tc.admin, "default", "netprobe", 10*time.Second, "not Ready", func(p *core.Pod) bool { return !isReady(p) })

	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "netprobe", nil))
	waitFor(t, 10*time.Second, "preStop httpGet", func() bool { return pr.seen("GET http://" + ip + ":8080/stop ") })
}

func TestFakeStatusBeforeSlowSandbox(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-slow", func(c *Config) {
		c.Runtime = mustFake(t, fake.WithLatency("RunPodSandbox", 2*time.Second))
	})
	_, err := pods(tc.admin, "default").Create(context.Background(), simplePod("slow", "node-slow"))
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "slow", 10*time.Second, "Pending, ContainerCreating", func(p *core.Pod) bool {
		return p.Status.Phase == core.PodPending && waitingReason(p) == ReasonContainerCreating
	})
	assert.Equal(t, core.PodQOSBestEffort, got.Status.QOSClass)
	waitPod(t, tc.admin, "default", "slow", 10*time.Second, "Running", running)
}

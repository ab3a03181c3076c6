package kubelet

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"github.com/orkit/orkit/api/resource"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, writeAtomic(dir, map[string]volumeFile{
		"a":       {data: []byte("one"), mode: 0o644},
		"sub/b":   {data: []byte("two"), mode: 0o600},
		"dropped": {data: []byte("x"), mode: 0o644},
	}))
	b, err := os.ReadFile(filepath.Join(dir, "a"))
	require.NoError(t, err)
	assert.Equal(t, "one", string(b))
	fi, err := os.Stat(filepath.Join(dir, "sub", "b"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	target, err := os.Readlink(filepath.Join(dir, "a"))
	require.NoError(t, err)
	assert.Equal(t, "..data/a", target)
	first, err := os.Readlink(filepath.Join(dir, dataDirName))
	require.NoError(t, err)

	// Unchanged payload: nothing is rewritten.
	require.NoError(t, writeAtomic(dir, map[string]volumeFile{
		"a": {data: []byte("one"), mode: 0o644}, "sub/b": {data: []byte("two"), mode: 0o600}, "dropped": {data: []byte("x"), mode: 0o644}}))
	again, _ := os.Readlink(filepath.Join(dir, dataDirName))
	assert.Equal(t, first, again)

	// Changed payload: swapped, stale names gone, old payload removed.
	require.NoError(t, writeAtomic(dir, map[string]volumeFile{"a": {data: []byte("three"), mode: 0o644}}))
	b, err = os.ReadFile(filepath.Join(dir, "a"))
	require.NoError(t, err)
	assert.Equal(t, "three", string(b))
	assert.NoFileExists(t, filepath.Join(dir, "dropped"))
	assert.NoDirExists(t, filepath.Join(dir, first))
}

func TestWriteAtomicRejectsBadPaths(t *testing.T) {
	for _, p := range []string{"", "/abs", "../up", "a/../../b", "..data"} {
		t.Run(p, func(t *testing.T) {
			err := writeAtomic(t.TempDir(), map[string]volumeFile{p: {data: []byte("x"), mode: 0o644}})
			assert.ErrorIs(t, err, ErrVolume)
		})
	}
}

// TestWriteAtomicReadersSeeWholePayloads reads two files that always change
// together while the payload is swapped; a reader never sees a mix.
func TestWriteAtomicReadersSeeWholePayloads(t *testing.T) {
	dir := t.TempDir()
	write := func(v string) {
		require.NoError(t, writeAtomic(dir, map[string]volumeFile{"x": {data: []byte(v), mode: 0o644}, "y": {data: []byte(v), mode: 0o644}}))
	}
	write("0")
	var stop atomic.Bool
	var mixed atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			data, err := os.Readlink(filepath.Join(dir, dataDirName))
			if err != nil {
				continue
			}
			x, err1 := os.ReadFile(filepath.Join(dir, data, "x"))
			y, err2 := os.ReadFile(filepath.Join(dir, data, "y"))
			if err1 == nil && err2 == nil && !bytes.Equal(x, y) {
				mixed.Add(1)
			}
		}
	}()
	for i := range 200 {
		write(strings.Repeat("v", i+1))
	}
	stop.Store(true)
	wg.Wait()
	assert.Zero(t, mixed.Load())
}

func TestProjectItemsAndModes(t *testing.T) {
	data := map[string][]byte{"k1": []byte("v1"), "k2": []byte("v2")}
	mode := int32(0o400)
	def := int32(0o440)
	files, err := project(data, []core.KeyToPath{{Key: "k1", Path: "dir/one"}, {Key: "k2", Path: "two", Mode: &mode}}, &def, "secret", "s", false)
	require.NoError(t, err)
	assert.Equal(t, volumeFile{data: []byte("v1"), mode: 0o440}, files["dir/one"])
	assert.Equal(t, volumeFile{data: []byte("v2"), mode: 0o400}, files["two"])
	_, err = project(data, []core.KeyToPath{{Key: "missing", Path: "m"}}, nil, "secret", "s", false)
	assert.ErrorIs(t, err, ErrConfigRef)
	files, err = project(data, []core.KeyToPath{{Key: "missing", Path: "m"}}, nil, "secret", "s", true)
	require.NoError(t, err)
	assert.Empty(t, files)
}

func TestSetUpHostPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	typ := func(t core.HostPathType) *core.HostPathType { return &t }
	cases := []struct {
		name    string
		path    string
		typ     *core.HostPathType
		wantErr bool
	}{
		{"unset missing ok", filepath.Join(dir, "nope"), nil, false},
		{"directory", dir, typ(core.HostPathDirectory), false},
		{"directory is file", file, typ(core.HostPathDirectory), true},
		{"file", file, typ(core.HostPathFile), false},
		{"file missing", filepath.Join(dir, "nope"), typ(core.HostPathFile), true},
		{"dir or create", filepath.Join(dir, "new", "d"), typ(core.HostPathDirectoryOrCreate), false},
		{"file or create", filepath.Join(dir, "new2", "f"), typ(core.HostPathFileOrCreate), false},
		{"socket is file", file, typ(core.HostPathSocket), true},
		{"char device", "/dev/null", typ(core.HostPathCharDev), false},
		{"block device is char", "/dev/null", typ(core.HostPathBlockDev), true},
		{"unknown type", dir, typ("Weird"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := setUpHostPath(&core.HostPathVolumeSource{Path: c.path, Type: c.typ})
			if c.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	assert.DirExists(t, filepath.Join(dir, "new", "d"))
	assert.FileExists(t, filepath.Join(dir, "new2", "f"))
}

func TestExpandEnv(t *testing.T) {
	vals := map[string]string{"A": "1", "B": "two"}
	cases := map[string]string{
		"plain":        "plain",
		"$(A)":         "1",
		"x-$(B)-y":     "x-two-y",
		"$$(A)":        "$(A)",
		"$(MISSING)":   "$(MISSING)",
		"$(A":          "$(A",
		"$":            "$",
		"$(A)$(B)$(A)": "1two1",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) { assert.Equal(t, want, expandEnv(in, vals)) })
	}
}

func FuzzExpandEnv(f *testing.F) {
	for _, s := range []string{"", "$(A)", "$$", "$(", "a$(B)c$$(D)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := expandEnv(s, map[string]string{"A": "x"})
		if !strings.Contains(s, "$") && out != s {
			t.Fatalf("changed a string without $: %q -> %q", s, out)
		}
	})
}

func TestPodPhase(t *testing.T) {
	run := core.ContainerState{Running: &core.ContainerStateRunning{}}
	ok := core.ContainerState{Terminated: &core.ContainerStateTerminated{ExitCode: 0}}
	bad := core.ContainerState{Terminated: &core.ContainerStateTerminated{ExitCode: 1}}
	wait := core.ContainerState{Waiting: &core.ContainerStateWaiting{Reason: ReasonContainerCreating}}
	backoff := core.ContainerStatus{State: core.ContainerState{Waiting: &core.ContainerStateWaiting{Reason: ReasonCrashLoopBackOff}},
		LastTerminationState: bad}
	cs := func(states ...core.ContainerState) []core.ContainerStatus {
		out := make([]core.ContainerStatus, len(states))
		for i, s := range states {
			out[i] = core.ContainerStatus{State: s}
		}
		return out
	}
	cases := []struct {
		name     string
		policy   core.RestartPolicy
		statuses []core.ContainerStatus
		initDone bool
		stopping bool
		want     core.PodPhase
	}{
		{"init pending", core.RestartPolicyAlways, cs(wait), false, false, core.PodPending},
		{"waiting", core.RestartPolicyAlways, cs(wait), true, false, core.PodPending},
		{"running", core.RestartPolicyAlways, cs(run, ok), true, false, core.PodRunning},
		{"crashloop is running", core.RestartPolicyAlways, []core.ContainerStatus{backoff}, true, false, core.PodRunning},
		{"never all ok", core.RestartPolicyNever, cs(ok, ok), true, false, core.PodSucceeded},
		{"never one failed", core.RestartPolicyNever, cs(ok, bad), true, false, core.PodFailed},
		{"onfailure all ok", core.RestartPolicyOnFailure, cs(ok), true, false, core.PodSucceeded},
		{"onfailure failed restarts", core.RestartPolicyOnFailure, cs(bad), true, false, core.PodRunning},
		{"always stopped keeps running", core.RestartPolicyAlways, cs(ok), true, false, core.PodRunning},
		{"stopping treats as never", core.RestartPolicyAlways, cs(bad), true, true, core.PodFailed},
		{"stopping all ok", core.RestartPolicyAlways, cs(ok), true, true, core.PodSucceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &core.Pod{Spec: core.PodSpec{RestartPolicy: c.policy}}
			got := podPhase(pod, core.PodStatus{ContainerStatuses: c.statuses}, c.initDone, false, c.stopping)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestKeepPhase(t *testing.T) {
	assert.Equal(t, core.PodSucceeded, keepPhase(core.PodSucceeded, core.PodStatus{Phase: core.PodRunning}).Phase)
	assert.Equal(t, core.PodFailed, keepPhase(core.PodFailed, core.PodStatus{Phase: core.PodPending}).Phase)
	assert.Equal(t, core.PodRunning, keepPhase(core.PodPending, core.PodStatus{Phase: core.PodRunning}).Phase)
}

func TestBackoff(t *testing.T) {
	var b backoff
	now := time.Unix(1000, 0)
	delays := []time.Duration{}
	for range 6 {
		b.next(now, 10*time.Second, time.Minute)
		delays = append(delays, b.delay)
	}
	assert.Equal(t, []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute, time.Minute}, delays)
	assert.True(t, b.waiting(now.Add(59*time.Second)))
	assert.False(t, b.waiting(now.Add(time.Minute)))
}

func TestResourceFit(t *testing.T) {
	mk := func(cpu, mem string) *core.Pod {
		req := core.ResourceList{}
		if cpu != "" {
			req[core.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			req[core.ResourceMemory] = resource.MustParse(mem)
		}
		return &core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: req}}}}}
	}
	alloc := core.ResourceList{core.ResourceCPU: resource.MustParse("2"), core.ResourceMemory: resource.MustParse("1Gi"),
		core.ResourcePods: resource.MustParse("3")}
	cases := []struct {
		name   string
		pod    *core.Pod
		others []*core.Pod
		reason string
	}{
		{"fits", mk("1", "512Mi"), nil, ""},
		{"fits exactly", mk("1", "512Mi"), []*core.Pod{mk("1", "512Mi")}, ""},
		{"out of cpu", mk("1500m", ""), []*core.Pod{mk("1", "")}, "OutOfcpu"},
		{"out of memory", mk("", "600Mi"), []*core.Pod{mk("", "500Mi")}, "OutOfmemory"},
		{"out of pods", mk("", ""), []*core.Pod{mk("", ""), mk("", ""), mk("", "")}, "OutOfpods"},
		{"best effort always fits cpu", mk("", ""), []*core.Pod{mk("2", "")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ResourceFit{}.Admit(AdmitAttributes{Pod: c.pod, OtherPods: c.others, Allocatable: alloc})
			assert.Equal(t, c.reason == "", r.Admit, r.Message)
			assert.Equal(t, c.reason, r.Reason)
			assert.False(t, r.Soft)
		})
	}
}

// TestHostPorts: a pod whose host port (same port and protocol, on the
// same or every address) is in use by a pod the node runs fails with
// NodePorts; other ports, protocols and addresses fit.
func TestHostPorts(t *testing.T) {
	mk := func(ports ...core.ContainerPort) *core.Pod {
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Ports: ports}}}}
	}
	tcp := func(ip string, port int32) core.ContainerPort {
		return core.ContainerPort{ContainerPort: port, HostPort: port, HostIP: ip}
	}
	udp := func(port int32) core.ContainerPort {
		return core.ContainerPort{ContainerPort: port, HostPort: port, Protocol: core.ProtocolUDP}
	}
	cases := []struct {
		name   string
		pod    *core.Pod
		others []*core.Pod
		admit  bool
	}{
		{"no host ports", mk(core.ContainerPort{ContainerPort: 80}), []*core.Pod{mk(tcp("", 80))}, true},
		{"free port", mk(tcp("", 81)), []*core.Pod{mk(tcp("", 80))}, true},
		{"same port, every address", mk(tcp("", 80)), []*core.Pod{mk(tcp("", 80))}, false},
		{"same port, one address vs every", mk(tcp("10.0.0.1", 80)), []*core.Pod{mk(tcp("0.0.0.0", 80))}, false},
		{"same port, same address", mk(tcp("10.0.0.1", 80)), []*core.Pod{mk(tcp("10.0.0.1", 80))}, false},
		{"same port, other address", mk(tcp("10.0.0.1", 80)), []*core.Pod{mk(tcp("10.0.0.2", 80))}, true},
		{"same port, other protocol", mk(udp(53)), []*core.Pod{mk(tcp("", 53))}, true},
		{"same port and protocol UDP", mk(udp(53)), []*core.Pod{mk(udp(53))}, false},
		{"container port only in use", mk(tcp("", 80)), []*core.Pod{mk(core.ContainerPort{ContainerPort: 80})}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := HostPorts{}.Admit(AdmitAttributes{Pod: c.pod, OtherPods: c.others})
			assert.Equal(t, c.admit, r.Admit, r.Message)
			if !c.admit {
				assert.Equal(t, "NodePorts", r.Reason)
				assert.Contains(t, r.Message, "didn't have free ports for the requested pod ports")
				assert.False(t, r.Soft)
			}
		})
	}
	assert.Equal(t, []string{"NodeResourcesFit", "NodePorts"}, []string{DefaultAdmitHandlers()[0].Name(), DefaultAdmitHandlers()[1].Name()})
}

func TestSecurityProfile(t *testing.T) {
	name := func(s string) *string { return &s }
	priv := true
	h := SecurityProfile{Allowed: map[string]bool{"good": true}, DenyPrivileged: true}
	cases := []struct {
		name  string
		pod   core.Pod
		admit bool
	}{
		{"none", core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c"}}}}, true},
		{"allowed seccomp", core.Pod{Spec: core.PodSpec{SecurityContext: &core.PodSecurityContext{SeccompProfile: &core.SeccompProfile{
			Type: core.SeccompProfileTypeLocalhost, LocalhostProfile: name("good")}}}}, true},
		{"missing seccomp", core.Pod{Spec: core.PodSpec{SecurityContext: &core.PodSecurityContext{SeccompProfile: &core.SeccompProfile{
			Type: core.SeccompProfileTypeLocalhost, LocalhostProfile: name("bad")}}}}, false},
		{"runtime default", core.Pod{Spec: core.PodSpec{SecurityContext: &core.PodSecurityContext{SeccompProfile: &core.SeccompProfile{
			Type: core.SeccompProfileTypeRuntimeDefault}}}}, true},
		{"missing apparmor in container", core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c", SecurityContext: &core.SecurityContext{
			AppArmorProfile: &core.AppArmorProfile{Type: "Localhost", LocalhostProfile: name("nope")}}}}}}, false},
		{"privileged", core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c", SecurityContext: &core.SecurityContext{Privileged: &priv}}}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.Admit(AdmitAttributes{Pod: &c.pod})
			assert.Equal(t, c.admit, r.Admit, r.Message)
			if !c.admit {
				assert.True(t, r.Soft)
				assert.NotEmpty(t, r.Reason)
			}
		})
	}
}

func TestCPUManager(t *testing.T) {
	m := newCPUManager(4, 1)
	got, err := m.allocate("a", 2)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2}, got)
	_, err = m.allocate("b", 2)
	assert.ErrorIs(t, err, ErrNoCPUs)
	m.release("a")
	got, err = m.allocate("b", 3)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, got)
	m2 := newCPUManager(4, 0)
	m2.adopt("x", "1-2")
	got, err = m2.allocate("y", 2)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 3}, got)
	assert.Equal(t, "0,3", formatCPUList(got))
}

func TestExclusiveCPUs(t *testing.T) {
	g := func(cpu string) *core.Pod {
		rl := core.ResourceList{core.ResourceCPU: resource.MustParse(cpu), core.ResourceMemory: resource.MustParse("64Mi")}
		return &core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: rl, Limits: rl}}}}}
	}
	assert.Equal(t, 2, exclusiveCPUs(g("2"), &g("2").Spec.Containers[0]))
	assert.Equal(t, 0, exclusiveCPUs(g("1500m"), &g("1500m").Spec.Containers[0]))
	burst := g("1")
	burst.Spec.Containers[0].Resources.Limits = nil
	assert.Equal(t, 0, exclusiveCPUs(burst, &burst.Spec.Containers[0]))
}

func TestParseCPUList(t *testing.T) {
	assert.Equal(t, []int{0, 2, 3, 4}, parseCPUList("0,2-4"))
	assert.Empty(t, parseCPUList("x,-"))
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3", "1,3,5-7", "", "9-1", "a-b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus := parseCPUList(s)
		if len(cpus) > 4096*(strings.Count(s, ",")+1) {
			t.Fatalf("unbounded expansion of %q: %d", s, len(cpus))
		}
	})
}

func TestPodCgroupNameAndLimits(t *testing.T) {
	rl := func(cpu, mem string) core.ResourceList {
		return core.ResourceList{core.ResourceCPU: resource.MustParse(cpu), core.ResourceMemory: resource.MustParse(mem)}
	}
	g := &core.Pod{ObjectMeta: meta.ObjectMeta{UID: "u1"}, Spec: core.PodSpec{Containers: []core.Container{
		{Name: "c", Resources: core.ResourceRequirements{Requests: rl("500m", "128Mi"), Limits: rl("500m", "128Mi")}}}}}
	assert.Equal(t, "kubepods/podu1", PodCgroupName(g))
	assert.Equal(t, podLimits{shares: 512, quota: 50000, memory: 128 << 20}, limitsOf(g))
	b := &core.Pod{ObjectMeta: meta.ObjectMeta{UID: "u2"}, Spec: core.PodSpec{Containers: []core.Container{
		{Name: "c", Resources: core.ResourceRequirements{Requests: rl("100m", "1Mi")}}}}}
	assert.Equal(t, "kubepods/burstable/podu2", PodCgroupName(b))
	assert.Equal(t, podLimits{shares: 102}, limitsOf(b))
	be := &core.Pod{ObjectMeta: meta.ObjectMeta{UID: "u3"}, Spec: core.PodSpec{Containers: []core.Container{{Name: "c"}}}}
	assert.Equal(t, "kubepods/besteffort/podu3", PodCgroupName(be))
	assert.Equal(t, podLimits{shares: 2}, limitsOf(be))
}

func TestPullPolicyAndRegistry(t *testing.T) {
	assert.Equal(t, core.PullAlways, pullPolicy(&core.Container{Image: "nginx"}))
	assert.Equal(t, core.PullAlways, pullPolicy(&core.Container{Image: "nginx:latest"}))
	assert.Equal(t, core.PullIfNotPresent, pullPolicy(&core.Container{Image: "localhost:5000/nginx:1.2"}))
	assert.Equal(t, core.PullNever, pullPolicy(&core.Container{Image: "x:1", ImagePullPolicy: core.PullNever}))
	assert.Equal(t, "docker.io", registryOf("nginx"))
	assert.Equal(t, "docker.io", registryOf("library/nginx"))
	assert.Equal(t, "127.0.0.1:5000", registryOf("127.0.0.1:5000/a/b:1"))
	assert.Equal(t, "localhost", registryOf("localhost/a"))
}

func TestDockerAuths(t *testing.T) {
	s := &core.Secret{Data: map[string][]byte{".dockerconfigjson": []byte(
		`{"auths":{"https://127.0.0.1:5000/v2/":{"auth":"dXNlcjpwYXNz"},"other.io":{"username":"u","password":"p"}}}`)}}
	got := dockerAuths(s, "127.0.0.1:5000")
	require.Len(t, got, 1)
	assert.Equal(t, "user", got[0].Username)
	assert.Equal(t, "pass", got[0].Password)
	assert.Empty(t, dockerAuths(&core.Secret{Data: map[string][]byte{".dockerconfigjson": []byte("{not json")}}, "x"))
}

// selfSigned returns a TLS request state with a client certificate of cn.
func peerWithCN(cn string) *tls.ConnectionState {
	return &tls.ConnectionState{PeerCertificates: []*x509.Certificate{{Subject: pkix.Name{CommonName: cn}}}}
}

func TestLogEndpointOnlyForAPIServer(t *testing.T) {
	k := &Kubelet{workers: map[meta.UID]*podWorker{}}
	k.cfg.Logger = quietLogger()
	cases := []struct {
		name string
		tls  *tls.ConnectionState
		want int
	}{
		{"no TLS", nil, http.StatusForbidden},
		{"other user", peerWithCN("admin"), http.StatusForbidden},
		{"api server, unknown pod", peerWithCN(APIServerClientCN), http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/containerLogs/default/p/c", nil)
			r.TLS = c.tls
			w := httptest.NewRecorder()
			k.serveHTTP(w, r)
			assert.Equal(t, c.want, w.Code)
		})
	}
	r := httptest.NewRequest(http.MethodGet, "/containerLogs/default/p/c?tailLines=-1", nil)
	r.TLS = peerWithCN(APIServerClientCN)
	w := httptest.NewRecorder()
	k.serveHTTP(w, r)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `invalid tailLines "-1"`)
	_, err := parseLogOptions(url.Values{"tailLines": {"-1"}}) // core.ParsePodLogOptions, fuzzed there
	assert.ErrorIs(t, err, ErrLogs)
	assert.ErrorIs(t, err, core.ErrInvalidOptions)
}

func TestCgroupManagerFiles(t *testing.T) {
	lim := podLimits{shares: 512, quota: 50000, memory: 128 << 20}
	t.Run("v1", func(t *testing.T) {
		root := t.TempDir()
		for _, c := range []string{"cpu", "cpuacct", "memory", "pids"} {
			require.NoError(t, os.MkdirAll(filepath.Join(root, c), 0o755))
		}
		m := newCgroupManager(root)
		require.False(t, m.v2)
		require.NoError(t, m.ensure("kubepods/burstable/podu", lim))
		read := func(p ...string) string { return readTrim(filepath.Join(append([]string{root}, p...)...)) }
		assert.Equal(t, "512", read("cpu", "kubepods/burstable/podu", "cpu.shares"))
		assert.Equal(t, "50000", read("cpu", "kubepods/burstable/podu", "cpu.cfs_quota_us"))
		assert.Equal(t, "100000", read("cpu", "kubepods/burstable/podu", "cpu.cfs_period_us"))
		assert.Equal(t, "134217728", read("memory", "kubepods/burstable/podu", "memory.limit_in_bytes"))
		require.NoError(t, m.ensure("kubepods/besteffort/podv", podLimits{shares: 2}))
		assert.Equal(t, "-1", read("cpu", "kubepods/besteffort/podv", "cpu.cfs_quota_us"))
		assert.Equal(t, "-1", read("memory", "kubepods/besteffort/podv", "memory.limit_in_bytes"))
	})
	t.Run("v2", func(t *testing.T) {
		root := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, "cgroup.controllers"), []byte("cpu memory pids"), 0o644))
		m := newCgroupManager(root)
		require.True(t, m.v2)
		require.NoError(t, m.ensure("kubepods/burstable/podu", lim))
		dir := filepath.Join(root, "kubepods", "burstable", "podu")
		assert.Equal(t, "50000 100000", readTrim(filepath.Join(dir, "cpu.max")))
		assert.Equal(t, "134217728", readTrim(filepath.Join(dir, "memory.max")))
		assert.Equal(t, "20", readTrim(filepath.Join(dir, "cpu.weight")))
		assert.Equal(t, "+cpu +memory +pids", readTrim(filepath.Join(root, "kubepods", "cgroup.subtree_control")))
		require.NoError(t, m.ensure("kubepods/besteffort/podv", podLimits{shares: 2}))
		assert.Equal(t, "max 100000", readTrim(filepath.Join(root, "kubepods", "besteffort", "podv", "cpu.max")))
		assert.Equal(t, "max", readTrim(filepath.Join(root, "kubepods", "besteffort", "podv", "memory.max")))
		assert.Equal(t, "1", readTrim(filepath.Join(root, "kubepods", "besteffort", "podv", "cpu.weight")))
	})
}

func FuzzDockerAuths(f *testing.F) {
	for _, s := range []string{`{"auths":{"r.io":{"auth":"dTpw"}}}`, `{"auths":{"https://r.io/v1/":{"username":"u","password":"p"}}}`, `{`, `null`, `{"auths":{"r.io":{"auth":"!!"}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, a := range dockerAuths(&core.Secret{Data: map[string][]byte{".dockerconfigjson": b}}, "r.io") {
			if a.ServerAddress != "r.io" {
				t.Fatalf("credentials for %q handed to r.io", a.ServerAddress)
			}
		}
	})
}

func TestConfigValidation(t *testing.T) {
	rt := mustFake(t)
	c := startClusterlessClient(t)
	cert := &tls.Certificate{}
	cases := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"missing everything", Config{}, false},
		{"missing runtime", Config{NodeName: "n", Client: c}, false},
		{"minimal", Config{NodeName: "n", Client: c, Runtime: rt}, true},
		{"bad cpu policy", Config{NodeName: "n", Client: c, Runtime: rt, CPUManagerPolicy: "dynamic"}, false},
		{"server without cert", Config{NodeName: "n", Client: c, Runtime: rt, ServerAddr: ":0"}, false},
		{"server with cert and CA", Config{NodeName: "n", Client: c, Runtime: rt, ServerAddr: ":0", ServingCert: cert, ClientCA: x509.NewCertPool()}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := New(tc.cfg)
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, DefaultLeaseRenewInterval, k.cfg.LeaseRenewInterval)
				assert.Equal(t, DefaultClusterDomain, k.cfg.ClusterDomain)
				return
			}
			assert.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
}

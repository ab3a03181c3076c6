package kubelet

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cni"
)

func TestPodFieldPodIPs(t *testing.T) {
	k := &Kubelet{cfg: Config{NodeIP: netip.MustParseAddr("10.0.0.1")}}
	withStatus := &core.Pod{Status: core.PodStatus{PodIP: "10.1.0.9", PodIPs: []core.PodIP{{IP: "10.1.0.9"}, {IP: "fd00::9"}}}}
	tests := []struct {
		name, path string
		pod        *core.Pod
		ips        []string
		want       string
	}{
		{"sandbox IP before the status has one", "status.podIP", &core.Pod{}, []string{"10.1.0.5"}, "10.1.0.5"},
		{"sandbox IPs before the status has them", "status.podIPs", &core.Pod{}, []string{"10.1.0.5", "fd00::5"}, "10.1.0.5,fd00::5"},
		{"sandbox IPs win over the status", "status.podIP", withStatus, []string{"10.1.0.5"}, "10.1.0.5"},
		{"status without sandbox IPs", "status.podIP", withStatus, nil, "10.1.0.9"},
		{"status IPs without sandbox IPs", "status.podIPs", withStatus, nil, "10.1.0.9,fd00::9"},
		{"no IP known", "status.podIP", &core.Pod{}, nil, ""},
		{"host IP", "status.hostIP", &core.Pod{}, []string{"10.1.0.5"}, "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := k.podField(tt.pod, tt.path, tt.ips)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNeedsPodIPs(t *testing.T) {
	field := func(p string) core.EnvVar {
		return core.EnvVar{Name: "X", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: p}}}
	}
	tests := []struct {
		name string
		env  []core.EnvVar
		want bool
	}{
		{"none", nil, false},
		{"plain values", []core.EnvVar{{Name: "A", Value: "status.podIP"}}, false},
		{"pod name", []core.EnvVar{field("metadata.name")}, false},
		{"pod IP", []core.EnvVar{field("metadata.name"), field("status.podIP")}, true},
		{"pod IPs", []core.EnvVar{field("status.podIPs")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, needsPodIPs(&core.Container{Env: tt.env}))
		})
	}
}

// slowNetwork is a cni.Network whose SetUp takes a while, as a real CNI
// attachment does, and hands out one fixed address.
type slowNetwork struct {
	latency time.Duration
	addr    netip.Prefix
	mu      sync.Mutex
	setUps  int
}

func (n *slowNetwork) Name() string                                   { return "slow" }
func (n *slowNetwork) Status(context.Context) error                   { return nil }
func (n *slowNetwork) TearDown(context.Context, cni.PodNetwork) error { return nil }
func (n *slowNetwork) Check(context.Context, cni.PodNetwork) error    { return nil }
func (n *slowNetwork) SetUp(ctx context.Context, _ cni.PodNetwork) (cni.Result, error) {
	n.mu.Lock()
	n.setUps++
	n.mu.Unlock()
	t := time.NewTimer(n.latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return cni.Result{}, ctx.Err()
	case <-t.C:
	}
	return cni.Result{Interface: "eth0", IPs: []cni.IPConfig{{Address: n.addr}}}, nil
}

// TestFakeEnvPodIPFromSandbox: a container whose env reads status.podIP(s)
// gets the sandbox's IP although the network attachment is slow and the
// API object has no IP when the container's config is built (bug 5 of
// CONFORMANCE.md: POD_IP= on real nodes).
func TestFakeEnvPodIPFromSandbox(t *testing.T) {
	tc := startCluster(t)
	network := &slowNetwork{latency: 300 * time.Millisecond, addr: netip.MustParsePrefix("10.244.7.9/24")}
	_, rt := tc.startFakeKubelet(t, "node-ip", func(c *Config) { c.Network = network })
	ctx := context.Background()
	p := simplePod("ipenv", "node-ip")
	p.Spec.Containers[0].Env = []core.EnvVar{
		{Name: "POD_IP", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		{Name: "POD_IPS", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: "status.podIPs"}}},
		{Name: "URL", Value: "http://$(POD_IP):80"},
	}
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "ipenv", 10*time.Second, "Running", running)
	require.Equal(t, "10.244.7.9", got.Status.PodIP)
	id := strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://")
	res, err := rt.ExecSync(ctx, id, []string{"/hello", "env"}, 5*time.Second)
	require.NoError(t, err)
	out := string(res.Stdout)
	assert.Contains(t, out, "POD_IP=10.244.7.9\n")
	assert.Contains(t, out, "POD_IPS=10.244.7.9\n")
	assert.Contains(t, out, "URL=http://10.244.7.9:80\n")
}

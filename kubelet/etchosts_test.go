package kubelet

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

const hostsHeader = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
	"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"

func TestManagedHostsFile(t *testing.T) {
	aliases := []core.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar"}}}
	tests := []struct {
		name             string
		ips              []string
		hostname, domain string
		aliases          []core.HostAlias
		want             string
	}{
		{"no IP yet", nil, "web", "", nil, hostsHeader},
		{"one IP", []string{"10.1.0.5"}, "web", "", nil, hostsHeader + "10.1.0.5\tweb\n"},
		{"dual stack with subdomain", []string{"10.1.0.5", "fd00::5"}, "web", "sub.ns.svc.cluster.local", nil,
			hostsHeader + "10.1.0.5\tweb.sub.ns.svc.cluster.local\tweb\nfd00::5\tweb.sub.ns.svc.cluster.local\tweb\n"},
		{"host aliases", []string{"10.1.0.5"}, "web", "", aliases,
			hostsHeader + "10.1.0.5\tweb\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(managedHostsFile(tt.ips, tt.hostname, tt.domain, tt.aliases)))
		})
	}
	got := string(hostNetworkHostsFile([]byte("127.0.0.1 localhost\n"), aliases))
	assert.Equal(t, "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n", got)
	assert.False(t, strings.HasPrefix(got, "# Kubernetes-managed hosts file."), "the suite tells host-network files apart by this prefix")
}

func TestPodHostnameAndDomain(t *testing.T) {
	long := strings.Repeat("a", 62) + "-b"
	tests := []struct {
		name         string
		pod          core.Pod
		host, domain string
	}{
		{"name", core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns"}}, "p", ""},
		{"hostname and subdomain", core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns"},
			Spec: core.PodSpec{Hostname: "h", Subdomain: "s"}}, "h", "s.ns.svc.cluster.local"},
		{"long name truncated without trailing dash", core.Pod{ObjectMeta: meta.ObjectMeta{Name: long, Namespace: "ns"}}, strings.Repeat("a", 62), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, d := podHostnameAndDomain(&tt.pod, "cluster.local")
			assert.Equal(t, tt.host, h)
			assert.Equal(t, tt.domain, d)
		})
	}
}

func TestExpandCommandAndSubPath(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": "", "POD": "web"}
	assert.Equal(t, []string{"echo 1", "$(MISSING)", "$(A)"}, expandAll([]string{"echo $(A)", "$(MISSING)", "$$(A)"}, env))
	assert.Nil(t, expandAll(nil, env))
	tests := []struct {
		expr, want, err string
	}{
		{"$(POD)", "web", ""},
		{"$(A)/$(POD)", "1/web", ""},
		{"logs/$(POD)", "logs/web", ""},
		{"$(MISSING)/$(POD)/$(EMPTY)", "", "missing value for EMPTY, MISSING"},
		{"$$(MISSING)", "$(MISSING)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := expandSubPath(tt.expr, env)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrConfigRef)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	for p, ok := range map[string]bool{"a/b": true, "a..b": true, "..": false, "a/../b": false, "/tmp": false, "./x": true} {
		err := checkSubPath(p)
		if ok {
			assert.NoError(t, err, p)
		} else {
			assert.ErrorIs(t, err, ErrVolume, p)
		}
	}
}

// TestFakeEtcHostsAndSubPathExpr: the kubelet writes the pod's hosts file
// (with the IP of a slow network attachment and the hostAliases), mounts
// it at /etc/hosts unless the container mounts that path itself, expands
// $(VAR) in command, args and subPathExpr, and holds a container whose
// subPathExpr cannot be expanded in CreateContainerConfigError until the
// pod is changed.
func TestFakeEtcHostsAndSubPathExpr(t *testing.T) {
	tc := startCluster(t)
	root := t.TempDir()
	network := &slowNetwork{latency: 200 * time.Millisecond, addr: netip.MustParsePrefix("10.244.8.3/24")}
	_, rt := tc.startFakeKubelet(t, "node-hosts", func(c *Config) { c.RootDir, c.Network = root, network })
	ctx := context.Background()
	p := simplePod("hosts", "node-hosts")
	p.Spec.HostAliases = []core.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo.remote", "bar.remote"}}}
	p.Spec.Volumes = []core.Volume{{Name: "work", VolumeSource: core.VolumeSource{EmptyDir: &core.EmptyDirVolumeSource{}}}}
	c := &p.Spec.Containers[0]
	c.Command = []string{"/hello", "serve"}
	c.Args = []string{"$(SUB)-$(NOPE)"}
	c.Env = []core.EnvVar{{Name: "SUB", Value: "x"},
		{Name: "ANN", ValueFrom: &core.EnvVarSource{FieldRef: &core.ObjectFieldSelector{FieldPath: "metadata.annotations['dir']"}}}}
	c.VolumeMounts = []core.VolumeMount{{Name: "work", MountPath: "/sub", SubPathExpr: "$(ANN)/$(SUB)"}}
	created, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "hosts", 10*time.Second, "CreateContainerConfigError", func(p *core.Pod) bool {
		return waitingReason(p) == ReasonCreateContainerConfigError
	})
	cur, err := pods(tc.admin, "default").Get(ctx, "hosts")
	require.NoError(t, err)
	cur.Annotations = map[string]string{"dir": "d"}
	_, err = pods(tc.admin, "default").Update(ctx, cur)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "hosts", 10*time.Second, "Running", running)

	dir := filepath.Join(root, "pods", string(created.UID))
	hosts, err := os.ReadFile(filepath.Join(dir, "etc-hosts"))
	require.NoError(t, err)
	assert.Equal(t, hostsHeader+"10.244.8.3\thosts\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo.remote\tbar.remote\n", string(hosts))
	st, err := rt.ContainerStatus(ctx, strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "cri://"))
	require.NoError(t, err)
	byPath := map[string]string{}
	for _, m := range st.Mounts {
		byPath[m.ContainerPath] = m.HostPath
	}
	assert.Equal(t, filepath.Join(dir, "etc-hosts"), byPath["/etc/hosts"])
	assert.Equal(t, filepath.Join(dir, "volumes", pluginEmptyDir, "work", "d", "x"), byPath["/sub"])
	assert.DirExists(t, byPath["/sub"])
}

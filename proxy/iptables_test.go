package proxy

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

func TestRenderIPTables(t *testing.T) {
	web := service("default", "web", "10.96.0.20", func(s *core.Service) {
		s.Spec.Type = core.ServiceTypeNodePort
		s.Spec.Ports[0].NodePort = 30080
	})
	sticky := service("default", "sticky", "10.96.0.21", func(s *core.Service) { s.Spec.SessionAffinity = core.ServiceAffinityClientIP })
	three := endpoints("default", "web", 8080, []string{"10.244.0.2", "10.244.0.3", "10.244.0.4"})
	two := endpoints("default", "sticky", 9090, []string{"10.244.0.5", "10.244.0.6"})
	tests := []struct {
		name     string
		svcs     []*core.Service
		eps      []*core.Endpoints
		gone     []string
		chains   int
		contains []string
		absent   []string
	}{
		{"equal probability over three", []*core.Service{web}, []*core.Endpoints{three}, nil, 5, []string{
			"-A ORKIT-SERVICES -d 10.96.0.20/32 -p tcp --dport 80",
			"--probability 0.33333333333", "--probability 0.50000000000",
			"-A ORKIT-NODEPORTS -p tcp --dport 30080", "--to-destination 10.244.0.4:8080",
			"-s 10.244.0.2/32 -j MARK --or-mark 0x4000", "-m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j ORKIT-NODEPORTS",
		}, []string{"-X"}},
		{"affinity", []*core.Service{sticky}, []*core.Endpoints{two}, nil, 3, []string{
			"-m recent --name ORKIT-SEP-", "--rcheck --seconds 10800 --reap", "--set",
		}, nil},
		{"gone chains deleted", nil, nil, []string{"ORKIT-SVC-abc"}, 0, []string{":ORKIT-SVC-abc - [0:0]", "-X ORKIT-SVC-abc"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, chains := RenderIPTables("ORKIT-", tt.svcs, tt.eps, tt.gone)
			assert.Len(t, chains, tt.chains)
			for _, c := range tt.contains {
				assert.Contains(t, script, c)
			}
			for _, c := range tt.absent {
				assert.NotContains(t, script, c)
			}
			for c := range chains {
				assert.LessOrEqual(t, len(c), 28, "iptables chain name limit")
			}
			assert.True(t, strings.HasPrefix(script, "*nat\n") && strings.HasSuffix(script, "COMMIT\n"))
		})
	}
}

func TestIPTablesApply(t *testing.T) {
	requireRootNFT(t)
	requireIPTables(t)
	ns := newNetNS(t)
	ctx := context.Background()
	ipt := &IPTables{NetNS: ns}
	save := func() string {
		out, err := exec.Command("ip", "netns", "exec", ns, "iptables-save", "-t", "nat").CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	web := service("default", "web", "10.96.0.20", nil)
	three := endpoints("default", "web", 8080, []string{"10.244.0.2", "10.244.0.3", "10.244.0.4"})
	one := endpoints("default", "web", 8080, []string{"10.244.0.3"})

	require.NoError(t, ipt.Sync(ctx, []*core.Service{web}, []*core.Endpoints{three}))
	out := save()
	assert.Equal(t, 3, strings.Count(out, "-j DNAT"))
	assert.Equal(t, 1, strings.Count(out, "-A PREROUTING -j ORKIT-SERVICES"))

	require.NoError(t, ipt.Sync(ctx, []*core.Service{web}, []*core.Endpoints{one}))
	out = save()
	assert.Equal(t, 1, strings.Count(out, "-j DNAT"))
	assert.Equal(t, 1, strings.Count(out, "-A PREROUTING -j ORKIT-SERVICES"), "hooks not duplicated")
	assert.Equal(t, 2+3, strings.Count(out, ":ORKIT-"), "removed endpoints' chains deleted")

	require.NoError(t, ipt.Cleanup(ctx))
	out = save()
	assert.NotContains(t, out, "ORKIT-")
	// a second process cleans up what the first left
	require.NoError(t, ipt.Sync(ctx, []*core.Service{web}, []*core.Endpoints{three}))
	require.NoError(t, (&IPTables{NetNS: ns}).Cleanup(ctx))
	assert.NotContains(t, save(), "ORKIT-")
}

// requireIPTables skips without iptables and iptables-restore, or fails
// with CI=true (scripts/setup.sh installs Debian's iptables).
func requireIPTables(t testing.TB) {
	t.Helper()
	if IPTablesAvailable() {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("iptables and iptables-restore are required (CI=true, so this fails instead of skipping)")
	}
	t.Skip("iptables or iptables-restore not installed")
}

package proxy

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

// requireRootNFT skips (fails under CI=true) without root, ip and nft.
func requireRootNFT(t testing.TB) {
	t.Helper()
	var why string
	switch {
	case os.Geteuid() != 0:
		why = "needs root"
	case !(&NFT{}).Available():
		why = "needs nft (Debian nftables)"
	default:
		if _, err := exec.LookPath("ip"); err != nil {
			why = "needs ip (iproute2)"
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

var netnsSeq atomic.Int64

// newNetNS creates a named network namespace removed at the end of the test.
func newNetNS(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("orkit-proxy-%d-%d", os.Getpid(), netnsSeq.Add(1))
	out, err := exec.Command("ip", "netns", "add", name).CombinedOutput()
	require.NoError(t, err, string(out))
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	return name
}

func listTable(t testing.TB, ns string) string {
	t.Helper()
	out, _ := exec.Command("ip", "netns", "exec", ns, "nft", "list", "table", TableFamily, TableName).CombinedOutput()
	return string(out)
}

func TestNFTApply(t *testing.T) {
	requireRootNFT(t)
	ns := newNetNS(t)
	ctx := context.Background()
	nft := &NFT{NetNS: ns}
	web := service("default", "web", "10.96.0.20", func(s *core.Service) {
		s.Spec.Type = core.ServiceTypeNodePort
		s.Spec.Ports[0].NodePort = 30080
		s.Spec.SessionAffinity = core.ServiceAffinityClientIP
	})
	api := service("default", "api", "10.96.0.21", nil)
	three := endpoints("default", "web", 8080, []string{"10.244.0.2", "10.244.0.3", "10.244.0.4"})
	one := endpoints("default", "web", 8080, []string{"10.244.0.3"})
	apiEps := endpoints("default", "api", 9090, []string{"10.244.0.7"})

	steps := []struct {
		name    string
		svcs    []*core.Service
		eps     []*core.Endpoints
		want    []string
		notWant []string
	}{
		{"initial", []*core.Service{web, api}, []*core.Endpoints{three, apiEps},
			[]string{"numgen random mod 3 vmap", "10.96.0.20 . tcp . 80", "tcp . 30080", "dnat to 10.244.0.7:9090", "update @aff-"}, nil},
		{"scale to one", []*core.Service{web, api}, []*core.Endpoints{one, apiEps},
			[]string{"dnat to 10.244.0.3:8080"}, []string{"10.244.0.2:8080", "numgen"}},
		{"web deleted", []*core.Service{api}, []*core.Endpoints{apiEps},
			[]string{"10.96.0.21 . tcp . 80"}, []string{"10.96.0.20", "30080", "aff-", "10.244.0.3"}},
		{"web back", []*core.Service{web, api}, []*core.Endpoints{three, apiEps},
			[]string{"numgen random mod 3 vmap", "10.96.0.20 . tcp . 80"}, nil},
	}
	var applied Ruleset
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			want := Render(st.svcs, st.eps)
			script := want.Script()
			if i > 0 {
				script = Diff(applied, want)
			}
			require.NoError(t, nft.Apply(ctx, script), script)
			applied = want
			got := listTable(t, ns)
			for _, w := range st.want {
				assert.Contains(t, got, w)
			}
			for _, w := range st.notWant {
				assert.NotContains(t, got, w)
			}
			// the incremental result equals a fresh build
			fresh := newNetNS(t)
			require.NoError(t, (&NFT{NetNS: fresh}).Apply(ctx, want.Script()))
			assert.Equal(t, normalize(listTable(t, fresh)), normalize(got))
		})
	}
	require.NoError(t, nft.Apply(ctx, DeleteScript("")))
	assert.NotContains(t, listTable(t, ns), "chain")
	err := nft.Apply(ctx, "add rule ip orkit-proxy nosuchchain accept\n")
	assert.ErrorIs(t, err, ErrApply)
}

// normalize sorts the lines of an nft listing (element and chain order may differ).
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	sortStrings(out)
	return strings.Join(out, "\n")
}

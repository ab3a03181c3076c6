package cni

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, 0, len(s))
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func TestPodDNS(t *testing.T) {
	host := DNSConfig{Nameservers: addrs("192.0.2.53"), Searches: []string{"corp.example"}, Options: []string{"edns0"}}
	base := PodDNSInput{Namespace: "web", ClusterDomain: "cluster.local", ClusterDNS: addrs("10.96.0.10"), Host: host}
	clusterFirst := DNSConfig{
		Nameservers: addrs("10.96.0.10"),
		Searches:    []string{"web.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"},
		Options:     []string{"ndots:5"},
	}
	tests := []struct {
		name   string
		modify func(in *PodDNSInput)
		want   DNSConfig
	}{
		{"empty policy is ClusterFirst", func(*PodDNSInput) {}, clusterFirst},
		{"ClusterFirst", func(in *PodDNSInput) { in.Policy = DNSClusterFirst }, clusterFirst},
		{"ClusterFirst on host network is Default", func(in *PodDNSInput) { in.HostNetwork = true }, host},
		{"ClusterFirstWithHostNet on host network", func(in *PodDNSInput) {
			in.Policy, in.HostNetwork = DNSClusterFirstWithHostNet, true
		}, clusterFirst},
		{"ClusterFirst without cluster DNS falls back", func(in *PodDNSInput) { in.ClusterDNS = nil }, host},
		{"Default", func(in *PodDNSInput) { in.Policy = DNSDefault }, host},
		{"None", func(in *PodDNSInput) {
			in.Policy = DNSNone
			in.Pod = DNSConfig{Nameservers: addrs("1.1.1.1"), Searches: []string{"a.example"}, Options: []string{"ndots:2"}}
		}, DNSConfig{Nameservers: addrs("1.1.1.1"), Searches: []string{"a.example"}, Options: []string{"ndots:2"}}},
		{"pod dnsConfig merges", func(in *PodDNSInput) {
			in.Pod = DNSConfig{Nameservers: addrs("10.96.0.10", "1.1.1.1"), Searches: []string{"cluster.local", "x.example"},
				Options: []string{"ndots:2", "timeout:1"}}
		}, DNSConfig{
			Nameservers: addrs("10.96.0.10", "1.1.1.1"),
			Searches:    []string{"web.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example", "x.example"},
			Options:     []string{"ndots:2", "timeout:1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base
			tt.modify(&in)
			got, err := PodDNS(in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPodDNSErrors(t *testing.T) {
	tests := map[string]PodDNSInput{
		"unknown policy":       {Policy: "Sometimes"},
		"too many nameservers": {Policy: DNSNone, Pod: DNSConfig{Nameservers: addrs("1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4")}},
		"no namespace":         {ClusterDomain: "cluster.local", ClusterDNS: addrs("10.96.0.10")},
		"search with space":    {Policy: DNSNone, Pod: DNSConfig{Searches: []string{"a b"}}},
		"too many searches":    {Policy: DNSNone, Pod: DNSConfig{Searches: strings.Fields(strings.Repeat("a.example ", 1) + manyDomains(40))}},
		"unspecified address":  {Policy: DNSNone, Pod: DNSConfig{Nameservers: addrs("0.0.0.0")}},
		"option with newline":  {Policy: DNSNone, Pod: DNSConfig{Options: []string{"ndots:1\nnameserver 6.6.6.6"}}},
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := PodDNS(in)
			require.ErrorIs(t, err, ErrInvalidDNS)
		})
	}
}

func manyDomains(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("d", i+1) + ".example ")
	}
	return b.String()
}

func TestWriteResolvConf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "resolv.conf")
	c := DNSConfig{Nameservers: addrs("10.96.0.10", "fd00::10"), Searches: []string{"ns.svc.cluster.local", "cluster.local"},
		Options: []string{"ndots:5", "edns0"}}
	require.NoError(t, WriteResolvConf(path, c))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "nameserver 10.96.0.10\nnameserver fd00::10\nsearch ns.svc.cluster.local cluster.local\noptions ndots:5 edns0\n", string(data))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())

	back, err := ParseResolvConf(strings.NewReader(string(data)))
	require.NoError(t, err)
	assert.Equal(t, c, back, "write then parse round-trips")

	err = WriteResolvConf(path, DNSConfig{Searches: []string{"bad domain"}})
	require.ErrorIs(t, err, ErrInvalidDNS)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, data, after, "invalid input leaves the file untouched")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")

	require.Error(t, WriteResolvConf("/nonexistent/dir/resolv.conf", c))
}

func TestParseResolvConf(t *testing.T) {
	tests := []struct {
		name, in string
		want     DNSConfig
		wantErr  bool
	}{
		{"empty", "", DNSConfig{}, false},
		{"full", "# generated\nnameserver 192.0.2.1 ; trailing\nnameserver ::1\ndomain old.example\n" +
			"search a.example b.example\noptions ndots:2 edns0\noptions ndots:3\nsortlist 10.0.0.0\n",
			DNSConfig{Nameservers: addrs("192.0.2.1", "::1"), Searches: []string{"a.example", "b.example"},
				Options: []string{"ndots:3", "edns0"}}, false},
		{"last search wins", "search a\ndomain b\n", DNSConfig{Searches: []string{"b"}}, false},
		{"bad nameserver", "nameserver dns.example\n", DNSConfig{}, true},
		{"nameserver without address", "nameserver\n", DNSConfig{}, true},
		{"oversized", strings.Repeat("#", maxResolvConfSize+1), DNSConfig{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseResolvConf(strings.NewReader(tt.in))
			if tt.wantErr {
				require.ErrorIs(t, err, ErrInvalidDNS)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseResolvConf(f *testing.F) {
	f.Add("nameserver 10.96.0.10\nsearch a b\noptions ndots:5\n")
	f.Add("nameserver fe80::1%eth0\n# c\n; d\ndomain x\n")
	f.Add("options\nsearch\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseResolvConf(strings.NewReader(in))
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidDNS)
			return
		}
		if c.Validate() != nil {
			return
		}
		// What validates round-trips through Format.
		back, err := ParseResolvConf(strings.NewReader(string(c.Format())))
		require.NoError(t, err)
		require.Equal(t, c.Nameservers, back.Nameservers)
		require.Equal(t, len(c.Searches), len(back.Searches))
	})
}

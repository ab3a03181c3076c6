package cni

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfList(t *testing.T) {
	cfg, err := Config{StateDir: "/state", PodCIDRs: []netip.Prefix{
		netip.MustParsePrefix("10.244.3.0/24"), netip.MustParsePrefix("fd00:10:244:3::/64"),
	}, MTU: 1400}.withDefaults()
	require.NoError(t, err)
	data, err := defaultConfList(cfg)
	require.NoError(t, err)
	list, err := parseConf(true, data)
	require.NoError(t, err)
	assert.Equal(t, "orkit", list.Name)
	require.Len(t, list.Plugins, 2)
	assert.Equal(t, "bridge", list.Plugins[0].Network.Type)
	assert.Equal(t, "host-local", list.Plugins[0].Network.IPAM.Type)
	assert.Equal(t, "portmap", list.Plugins[1].Network.Type)
	assert.True(t, list.Plugins[1].Network.Capabilities["portMappings"])
	for _, want := range []string{`"bridge": "orkit0"`, `"isGateway": true`, `"ipMasq": true`, `"hairpinMode": true`,
		`"subnet": "10.244.3.0/24"`, `"subnet": "fd00:10:244:3::/64"`, `"dataDir": "/state/ipam"`, `"mtu": 1400`} {
		assert.Contains(t, string(data), want)
	}
	assert.Equal(t, []string{"/state/ipam/orkit"}, hostLocalDirs(list))

	lo, err := parseConf(true, loopbackConfList())
	require.NoError(t, err)
	assert.Equal(t, "loopback", lo.Plugins[0].Network.Type)
	assert.Empty(t, hostLocalDirs(lo))
}

func TestHostLocalDefaultDataDir(t *testing.T) {
	list, err := parseConf(true, []byte(`{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"bridge","ipam":{"type":"host-local"}}]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"/var/lib/cni/networks/n"}, hostLocalDirs(list))
}

func TestParseOwner(t *testing.T) {
	for in, want := range map[string]string{
		"abc\r\neth0": "abc",
		"abc":         "abc",
		"  abc  \n":   "abc",
	} {
		got, err := parseOwner(strings.NewReader(in))
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := parseOwner(strings.NewReader(""))
	require.Error(t, err)
}

func FuzzParseConf(f *testing.F) {
	f.Add(true, []byte(`{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"bridge"},{"type":"portmap"}]}`))
	f.Add(false, []byte(`{"cniVersion":"0.4.0","name":"n","type":"ptp","ipam":{"type":"host-local"}}`))
	f.Add(true, []byte(`{"name":"n","cniVersions":["1.0.0","0.4.0"],"plugins":[]}`))
	f.Add(true, []byte(`[]`))
	f.Fuzz(func(t *testing.T, isList bool, data []byte) {
		list, err := parseConf(isList, data)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidConfig)
			return
		}
		require.NotEmpty(t, list.Name)
		require.NotEmpty(t, list.CNIVersion)
		require.NotEmpty(t, list.Plugins)
		for _, p := range list.Plugins {
			require.NotEmpty(t, p.Network.Type)
			require.False(t, strings.Contains(p.Network.Type, "/"))
		}
		_ = hostLocalDirs(list)
	})
}

func FuzzParseOwner(f *testing.F) {
	f.Add([]byte("abc\r\neth0"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		owner, err := parseOwner(bytes.NewReader(data))
		if err == nil {
			require.Equal(t, strings.TrimSpace(owner), owner)
			require.NotContains(t, owner, "\n")
		}
	})
}

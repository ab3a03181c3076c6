package hosttest

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostsReachEachOther makes two hosts: host-1 connects to a listener
// on host-2 and to one on the bridge's address; host-2 has no route
// beyond the hosts' subnet.
func TestHostsReachEachOther(t *testing.T) {
	hs := Start(t, Config{Hosts: 2})
	require.Len(t, hs.Hosts, 2)
	h1, h2 := hs.Hosts[0], hs.Hosts[1]
	assert.NotEqual(t, h1.Addr, h2.Addr)
	onHost2, err := h2.Listen(":0")
	require.NoError(t, err)
	onBridge, err := net.Listen("tcp", net.JoinHostPort(hs.Gateway.String(), "0"))
	require.NoError(t, err)
	for target, ln := range map[string]net.Listener{h2.Addr.String(): onHost2, hs.Gateway.String(): onBridge} {
		defer ln.Close()
		accepted := make(chan error, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				c.Close()
			}
			accepted <- err
		}()
		port := ln.Addr().(*net.TCPAddr).Port
		out, err := h1.Run("bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%d", target, port))
		require.NoError(t, err, out)
		require.NoError(t, <-accepted)
	}
	out, err := h2.Run("ip", "-4", "route")
	require.NoError(t, err, out)
	assert.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 1, "only the subnet: %s", out)
	_, err = h1.Run("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/1")
	assert.Error(t, err, "the host's loopback is its own")
}

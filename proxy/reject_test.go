package proxy

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netns"

	"github.com/orkit/orkit/api/core"
)

// inNetNS runs fn on a thread in the named network namespace: sockets fn
// opens belong to it.
func inNetNS(t *testing.T, name string, fn func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		// fn may end the goroutine (a failed require): done is sent
		// anyway, and the locked thread, still in the namespace, dies.
		var err error
		defer func() { done <- err }()
		runtime.LockOSThread()
		orig, oerr := netns.Get()
		if oerr != nil {
			err = oerr
			return
		}
		defer orig.Close()
		target, terr := netns.GetFromName(name)
		if terr != nil {
			err = terr
			return
		}
		defer target.Close()
		if err = netns.Set(target); err != nil {
			return
		}
		err = errors.New("fn did not return")
		fn()
		if err = netns.Set(orig); err != nil {
			return
		}
		runtime.UnlockOSThread()
	}()
	require.NoError(t, <-done)
}

// serviceHost makes netns name look like a node behind the host guard: the
// service CIDR routed to a dummy device, a pod address (10.244.0.2) on the
// loopback device with a server on 8080 answering "hi".
func serviceHost(t *testing.T, name string) {
	t.Helper()
	// A dummy device, or as the host guard does where the kernel has no
	// dummy driver, a bridge without ports and without ARP.
	if exec.Command("ip", "-n", name, "link", "add", "svc0", "type", "dummy").Run() != nil {
		out, err := exec.Command("ip", "-n", name, "link", "add", "svc0", "type", "bridge").CombinedOutput()
		require.NoError(t, err, string(out))
		out, err = exec.Command("ip", "-n", name, "link", "set", "svc0", "arp", "off").CombinedOutput()
		require.NoError(t, err, string(out))
	}
	for _, c := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "set", "svc0", "up"},
		{"route", "add", "10.96.0.0/12", "dev", "svc0"},
		{"addr", "add", "10.244.0.2/32", "dev", "lo"},
	} {
		out, err := exec.Command("ip", append([]string{"-n", name}, c...)...).CombinedOutput()
		require.NoError(t, err, "ip %v: %s", c, out)
	}
	var l net.Listener
	inNetNS(t, name, func() {
		var err error
		l, err = net.Listen("tcp", "10.244.0.2:8080")
		require.NoError(t, err)
	})
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hi"))
			c.Close()
		}
	}()
}

// TestUntranslatedServiceAddressesRejected checks, for both backends, that
// from a node a cluster IP with endpoints reaches them while any other
// address of the service CIDR is refused at once (TCP and UDP), and that
// without the rule it would only be dropped by the dummy device.
func TestUntranslatedServiceAddressesRejected(t *testing.T) {
	requireRootNFT(t)
	web := service("default", "web", "10.96.0.20", nil)
	eps := endpoints("default", "web", 8080, []string{"10.244.0.2"})
	backends := map[string]func(t *testing.T, ns string, cidrs []string) error{
		"nftables": func(t *testing.T, ns string, cidrs []string) error {
			rs := Render([]*core.Service{web}, []*core.Endpoints{eps})
			rs.ServiceCIDRs = prefixes(t, cidrs)
			return (&NFT{NetNS: ns}).Apply(context.Background(), rs.Script())
		},
		"iptables": func(t *testing.T, ns string, cidrs []string) error {
			requireIPTables(t)
			ipt := &IPTables{NetNS: ns, ServiceCIDRs: prefixes(t, cidrs)}
			return ipt.Sync(context.Background(), []*core.Service{web}, []*core.Endpoints{eps})
		},
	}
	for name, apply := range backends {
		t.Run(name, func(t *testing.T) {
			ns := newNetNS(t)
			serviceHost(t, ns)
			require.NoError(t, apply(t, ns, []string{"10.96.0.0/12"}))
			inNetNS(t, ns, func() {
				c, err := net.DialTimeout("tcp", "10.96.0.20:80", 5*time.Second)
				require.NoError(t, err, "the cluster IP reaches its endpoint")
				b := make([]byte, 2)
				_, err = c.Read(b)
				c.Close()
				require.NoError(t, err)
				assert.Equal(t, "hi", string(b))

				_, err = net.DialTimeout("tcp", "10.96.0.21:80", 5*time.Second)
				assert.ErrorIs(t, err, syscall.ECONNREFUSED, "an unused cluster IP is refused")
				_, err = net.DialTimeout("tcp", "10.96.0.20:81", 5*time.Second)
				assert.ErrorIs(t, err, syscall.ECONNREFUSED, "so is a port the Service does not have")

				// UDP: the local send itself fails (the packet is rejected
				// on output), or the ICMP error comes back to the socket.
				u, err := net.Dial("udp", "10.96.0.21:53")
				require.NoError(t, err)
				defer u.Close()
				if _, err = u.Write([]byte("x")); err == nil {
					require.NoError(t, u.SetReadDeadline(time.Now().Add(5*time.Second)))
					_, err = u.Read(b)
				}
				assert.True(t, errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ECONNREFUSED), "UDP is refused too: %v", err)
			})
		})
	}
	t.Run("without the rule the dummy device drops it", func(t *testing.T) {
		ns := newNetNS(t)
		serviceHost(t, ns)
		require.NoError(t, backends["nftables"](t, ns, nil))
		inNetNS(t, ns, func() {
			_, err := net.DialTimeout("tcp", "10.96.0.21:80", time.Second)
			var ne net.Error
			require.True(t, errors.As(err, &ne) && ne.Timeout(), "dropped, not refused: %v", err)
		})
	})
}

func prefixes(t *testing.T, ss []string) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, s := range ss {
		p, err := netip.ParsePrefix(s)
		require.NoError(t, err)
		out = append(out, p)
	}
	return out
}

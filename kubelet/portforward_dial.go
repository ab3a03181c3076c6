package kubelet

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// dialPodPort connects to port on the loopback address inside the network
// namespace at netnsPath (IPv4, then IPv6), as the CRI runtimes do for
// port-forward: the port need not be published or bound to the pod IP.
// netnsPath "" dials on the node (a host-network pod). The dial runs on
// an OS thread switched into the namespace and back; a thread that cannot
// be switched back is left locked so the Go runtime discards it.
func dialPodPort(ctx context.Context, netnsPath string, port int32) (net.Conn, error) {
	addr4 := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	addr6 := net.JoinHostPort("::1", strconv.Itoa(int(port)))
	dial := func() (net.Conn, error) {
		var d net.Dialer
		c, err4 := d.DialContext(ctx, "tcp4", addr4)
		if err4 == nil {
			return c, nil
		}
		c, err6 := d.DialContext(ctx, "tcp6", addr6)
		if err6 == nil {
			return c, nil
		}
		return nil, fmt.Errorf("failed to connect to localhost:%d inside namespace %q, IPv4: %v IPv6 %v ", port, netnsPath, err4, err6)
	}
	if netnsPath == "" {
		return dial()
	}
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() { // ends with the dial
		c, err := inNetNS(netnsPath, dial)
		ch <- result{c, err}
	}()
	r := <-ch
	if r.err != nil {
		return nil, fmt.Errorf("failed to execute portforward in network namespace %q: %w", netnsPath, r.err)
	}
	return r.c, nil
}

// inNetNS runs fn on the calling goroutine's thread, switched into the
// network namespace at path. Sockets fn creates stay in that namespace.
func inNetNS(path string, fn func() (net.Conn, error)) (net.Conn, error) {
	target, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	runtime.LockOSThread()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer self.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("enter network namespace: %w", err)
	}
	c, ferr := fn()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err == nil {
		runtime.UnlockOSThread()
	} // else: the thread stays locked and dies with this goroutine
	return c, ferr
}

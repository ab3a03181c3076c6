package cluster

import (
	"context"
	"net"
	"os"
	"sync"
	"syscall"
)

// errRefused is what a blocked CutDialer answers: connection refused, as
// a client sees a server that is down (client-go retries such watches
// from the same resourceVersion).
var errRefused = os.NewSyscallError("connect", syscall.ECONNREFUSED)

// CutDialer is a rest.Config.Dial that remembers the connections it made,
// so a test can cut a client off the server (its watches end as if the
// network failed) and keep it off for a while. The zero value is ready;
// safe for concurrent use.
type CutDialer struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	blocked bool
}

// DialContext dials like net.Dialer unless the dialer is blocked; then
// the connection is refused.
func (d *CutDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	blocked := d.blocked
	d.mu.Unlock()
	if blocked {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errRefused}
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns == nil {
		d.conns = map[net.Conn]struct{}{}
	}
	d.conns[c] = struct{}{}
	return c, nil
}

// Block makes new dials fail (true) or succeed again (false).
func (d *CutDialer) Block(b bool) {
	d.mu.Lock()
	d.blocked = b
	d.mu.Unlock()
}

// CutAll closes every connection the dialer made and returns how many.
func (d *CutDialer) CutAll() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.conns)
	for c := range d.conns {
		_ = c.Close()
	}
	clear(d.conns)
	return n
}

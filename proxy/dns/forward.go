package dns

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// DefaultResolvConf is where the upstream resolvers are read from when
// Config.ResolvConf is empty.
const DefaultResolvConf = "/etc/resolv.conf"

// maxResolvConf bounds the resolv.conf read.
const maxResolvConf = 64 << 10

// forwardAttempt bounds the wait for one upstream; a query moves on to
// the next upstream after it.
const forwardAttempt = 2 * time.Second

// ReadUpstreams returns the nameservers of the resolv.conf at path as
// upstreams on port 53, in file order, without duplicates. Lines other
// than nameserver lines, comments and unparsable addresses are skipped.
// A missing file yields none.
func ReadUpstreams(path string) ([]netip.AddrPort, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dns: read upstreams: %w", err)
	}
	defer f.Close()
	var out []netip.AddrPort
	sc := bufio.NewScanner(io.LimitReader(f, maxResolvConf))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexAny(line, "#;"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "nameserver" {
			continue
		}
		ip, err := netip.ParseAddr(fields[1])
		if err != nil {
			continue
		}
		ap := netip.AddrPortFrom(ip.Unmap().WithZone(""), 53)
		if !containsAddrPort(out, ap) {
			out = append(out, ap)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dns: read upstreams from %s: %w", path, err)
	}
	return out, nil
}

func containsAddrPort(list []netip.AddrPort, ap netip.AddrPort) bool {
	for _, x := range list {
		if x == ap {
			return true
		}
	}
	return false
}

// withoutSelf drops the upstreams that are this server (bound at self):
// its own address, or any address of the host on its port when it listens
// on all of them. Forwarding to itself would loop.
func withoutSelf(ups []netip.AddrPort, self netip.AddrPort, local func(netip.Addr) bool) []netip.AddrPort {
	var out []netip.AddrPort
	for _, u := range ups {
		if u.Port() == self.Port() && (u.Addr() == self.Addr() || (self.Addr().IsUnspecified() && local(u.Addr()))) {
			continue
		}
		out = append(out, u)
	}
	return out
}

// isLocalAddr reports whether ip is loopback or an address of one of the
// host's interfaces.
func isLocalAddr(ip netip.Addr) bool {
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip.Unmap() {
			return true
		}
	}
	return false
}

// forwarder sends queries for names outside the cluster domain to the
// upstream resolvers, in turn, and passes their answer back as it is
// (NXDOMAIN and SERVFAIL included). It is immutable and safe for
// concurrent use.
type forwarder struct {
	upstreams []netip.AddrPort
	timeout   time.Duration // for one query, over all upstreams
}

// forward returns the upstreams' answer to query over network ("udp" or
// "tcp"), or SERVFAIL when none answered within the timeout.
func (f *forwarder) forward(ctx context.Context, query []byte, network string) []byte {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	for _, up := range f.upstreams {
		actx, acancel := context.WithTimeout(ctx, forwardAttempt)
		resp, err := exchange(actx, up, query, network)
		acancel()
		if err == nil {
			return resp
		}
		if ctx.Err() != nil {
			break
		}
	}
	return serverFailure(query)
}

// exchange sends query to up and returns the response that matches it
// (same ID and question).
func exchange(ctx context.Context, up netip.AddrPort, query []byte, network string) ([]byte, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, up.String())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if network == "tcp" {
		return exchangeTCP(c, query)
	}
	if _, err := c.Write(query); err != nil {
		return nil, err
	}
	buf := make([]byte, 65535)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return nil, err
		}
		if matches(query, buf[:n]) {
			return append([]byte(nil), buf[:n]...), nil
		}
		// a stray or spoofed datagram: keep waiting for ours
	}
}

func exchangeTCP(c net.Conn, query []byte) ([]byte, error) {
	if _, err := c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(query))), query...)); err != nil {
		return nil, err
	}
	var l [2]byte
	if _, err := io.ReadFull(c, l[:]); err != nil {
		return nil, err
	}
	resp := make([]byte, binary.BigEndian.Uint16(l[:]))
	if _, err := io.ReadFull(c, resp); err != nil {
		return nil, err
	}
	if !matches(query, resp) {
		return nil, errors.New("dns: upstream answered another query")
	}
	return resp, nil
}

// matches reports whether resp is a response to query: same ID, the
// response bit, the same first question.
func matches(query, resp []byte) bool {
	var qp, rp dnsmessage.Parser
	qh, err := qp.Start(query)
	if err != nil {
		return false
	}
	rh, err := rp.Start(resp)
	if err != nil || !rh.Response || rh.ID != qh.ID {
		return false
	}
	qq, err := qp.Question()
	if err != nil {
		return false
	}
	rq, err := rp.Question()
	if err != nil {
		return false
	}
	return qq.Type == rq.Type && qq.Class == rq.Class && strings.EqualFold(qq.Name.String(), rq.Name.String())
}

// serverFailure is a SERVFAIL response to query (nil when its header does
// not parse).
func serverFailure(query []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil
	}
	resp := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired,
		RCode: dnsmessage.RCodeServerFailure}
	q, err := p.Question()
	if err != nil {
		return build(resp, nil, nil, 0)
	}
	return build(resp, &q, nil, 0)
}

// needsForward reports whether query asks about a name the zone does not
// own, which the upstreams answer: a name outside the cluster domain, or
// a reverse name of no cluster address (CoreDNS's fallthrough for
// in-addr.arpa and ip6.arpa). Malformed queries and other opcodes stay
// here (Answer words the error).
func needsForward(z *Zone, query []byte) bool {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil || h.Response || h.OpCode != 0 {
		return false
	}
	q, err := p.Question()
	if err != nil || (q.Class != dnsmessage.ClassINET && q.Class != dnsmessage.ClassANY) {
		return false
	}
	return !z.Owns(q.Name.String())
}

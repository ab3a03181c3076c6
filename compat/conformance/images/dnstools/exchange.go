package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// errNoReply is returned when no server answered in time.
var errNoReply = errors.New("connection timed out; no servers could be reached")

// client sends queries to a list of servers.
type client struct {
	servers  []netip.AddrPort
	timeout  time.Duration // per try
	tries    int           // rounds over the servers
	tcp      bool          // TCP from the start (else UDP, TCP when truncated)
	ignoreTC bool          // keep a truncated UDP answer
	recurse  bool
	edns     bool
}

// reply is one answer and the server and transport that gave it.
type reply struct {
	msg    dnsmessage.Message
	server netip.AddrPort
	tcp    bool
	size   int
	rtt    time.Duration
}

// query asks the servers in turn, in rounds, for name and type. A server
// that answers SERVFAIL, REFUSED or NOTIMP is passed over while others
// remain; the last such answer is returned when none does better.
func (c *client) query(ctx context.Context, name string, qtype dnsmessage.Type) (reply, error) {
	var last *reply
	for try := 0; try < max(c.tries, 1); try++ {
		for i, s := range c.servers {
			r, err := c.ask(ctx, s, name, qtype)
			if err != nil {
				continue
			}
			switch r.msg.RCode {
			case dnsmessage.RCodeServerFailure, dnsmessage.RCodeRefused, dnsmessage.RCodeNotImplemented:
				last = &r
				if i < len(c.servers)-1 {
					continue
				}
			}
			return r, nil
		}
		if last != nil {
			return *last, nil
		}
	}
	return reply{}, errNoReply
}

// ask sends one query to server over UDP (or TCP), and again over TCP
// when the UDP answer is truncated.
func (c *client) ask(ctx context.Context, server netip.AddrPort, name string, qtype dnsmessage.Type) (reply, error) {
	id, q, err := c.build(name, qtype)
	if err != nil {
		return reply{}, err
	}
	tcp := c.tcp
	for {
		start := time.Now()
		raw, err := exchange(ctx, server, q, tcp, c.timeout)
		if err != nil {
			return reply{}, err
		}
		var m dnsmessage.Message
		if err := m.Unpack(raw); err != nil {
			return reply{}, fmt.Errorf("parse reply from %s: %w", server, err)
		}
		if m.ID != id || !m.Response {
			return reply{}, fmt.Errorf("reply from %s does not match the query", server)
		}
		if m.Truncated && !tcp && !c.ignoreTC {
			tcp = true
			continue
		}
		return reply{msg: m, server: server, tcp: tcp, size: len(raw), rtt: time.Since(start)}, nil
	}
}

// build packs a query with a random ID.
func (c *client) build(name string, qtype dnsmessage.Type) (uint16, []byte, error) {
	n, err := dnsmessage.NewName(name)
	if err != nil {
		return 0, nil, fmt.Errorf("bad name %q: %w", name, err)
	}
	var idb [2]byte
	_, _ = rand.Read(idb[:])
	id := binary.BigEndian.Uint16(idb[:])
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: c.recurse})
	_ = b.StartQuestions()
	if err := b.Question(dnsmessage.Question{Name: n, Type: qtype, Class: dnsmessage.ClassINET}); err != nil {
		return 0, nil, err
	}
	if c.edns {
		_ = b.StartAdditionals()
		var rh dnsmessage.ResourceHeader
		if err := rh.SetEDNS0(1232, dnsmessage.RCodeSuccess, false); err != nil {
			return 0, nil, err
		}
		if err := b.OPTResource(rh, dnsmessage.OPTResource{}); err != nil {
			return 0, nil, err
		}
	}
	out, err := b.Finish()
	return id, out, err
}

// exchange sends the packed query q to server and returns the raw reply:
// over UDP the first datagram whose ID matches, over TCP one
// length-prefixed message. timeout bounds the whole exchange.
func exchange(ctx context.Context, server netip.AddrPort, q []byte, tcp bool, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	network := "udp"
	if tcp {
		network = "tcp"
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, server.String())
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if tcp {
		msg := binary.BigEndian.AppendUint16(nil, uint16(len(q)))
		if _, err := conn.Write(append(msg, q...)); err != nil {
			return nil, err
		}
		var l [2]byte
		if _, err := io.ReadFull(conn, l[:]); err != nil {
			return nil, err
		}
		buf := make([]byte, binary.BigEndian.Uint16(l[:]))
		_, err := io.ReadFull(conn, buf)
		return buf, err
	}
	if _, err := conn.Write(q); err != nil {
		return nil, err
	}
	buf := make([]byte, 65535)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return nil, err
		}
		if n >= 2 && buf[0] == q[0] && buf[1] == q[1] {
			return buf[:n], nil
		}
	}
}

package dns_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"

	"github.com/orkit/orkit/internal/testenv"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/proxy/dns"
)

// upstream is a resolver the test runs on a loopback address: www.example
// has an address, nx.example does not exist, fail.example fails
// (SERVFAIL), slow.example never gets an answer.
type upstream struct {
	udp      net.PacketConn
	tcp      net.Listener
	queries  atomic.Int64
	slowSeen chan struct{}
	slowOnce sync.Once
}

func startUpstream(t *testing.T, addr string) *upstream {
	t.Helper()
	u := &upstream{slowSeen: make(chan struct{})}
	var err error
	u.udp, err = net.ListenPacket("udp", addr)
	require.NoError(t, err)
	u.tcp, err = net.Listen("tcp", u.udp.LocalAddr().String())
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { u.udp.Close(); u.tcp.Close(); wg.Wait() })
	wg.Go(func() {
		buf := make([]byte, 65535)
		for {
			n, from, err := u.udp.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := u.answer(buf[:n]); out != nil {
				_, _ = u.udp.WriteTo(out, from)
			}
		}
	})
	wg.Go(func() {
		for {
			c, err := u.tcp.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, q); err != nil {
					return
				}
				if out := u.answer(q); out != nil {
					_, _ = c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...))
				}
			})
		}
	})
	return u
}

func (u *upstream) addr() netip.AddrPort { return netip.MustParseAddrPort(u.udp.LocalAddr().String()) }

func (u *upstream) answer(q []byte) []byte {
	u.queries.Add(1)
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil
	}
	question, err := p.Question()
	if err != nil {
		return nil
	}
	resp := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	var a []dnsmessage.AResource
	switch question.Name.String() {
	case "www.example.":
		if question.Type == dnsmessage.TypeA {
			a = append(a, dnsmessage.AResource{A: [4]byte{192, 0, 2, 10}})
		}
	case "fail.example.":
		resp.RCode = dnsmessage.RCodeServerFailure
	case "slow.example.":
		u.slowOnce.Do(func() { close(u.slowSeen) })
		return nil
	default:
		resp.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, resp)
	_ = b.StartQuestions()
	_ = b.Question(question)
	_ = b.StartAnswers()
	for _, r := range a {
		_ = b.AResource(dnsmessage.ResourceHeader{Name: question.Name, Class: dnsmessage.ClassINET, TTL: 30}, r)
	}
	out, _ := b.Finish()
	return out
}

// startServer runs a cluster DNS server with cfg (Client, Logger and, when
// empty, Listen filled in) until the test ends.
func startServer(t *testing.T, cfg dns.Config) *dns.Server {
	t.Helper()
	cl := testnode.StartCluster(t)
	cfg.Client = cl.Client(t, cl.AdminKubeconfig)
	cfg.Logger = testnode.QuietLogger()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	srv, err := dns.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatalf("dns server: %v", err)
	}
	return srv
}

// ask sends one question over network and returns the response.
func ask(t *testing.T, srv *dns.Server, network, name string, typ dnsmessage.Type) dnsmessage.Message {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: uint16(rand.IntN(1 << 16)), RecursionDesired: true})
	require.NoError(t, b.StartQuestions())
	require.NoError(t, b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}))
	q, err := b.Finish()
	require.NoError(t, err)
	c, err := net.Dial(network, srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
	var resp []byte
	if network == "tcp" {
		_, err = c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(q))), q...))
		require.NoError(t, err)
		var l [2]byte
		_, err = io.ReadFull(c, l[:])
		require.NoError(t, err)
		resp = make([]byte, binary.BigEndian.Uint16(l[:]))
		_, err = io.ReadFull(c, resp)
		require.NoError(t, err)
	} else {
		_, err = c.Write(q)
		require.NoError(t, err)
		buf := make([]byte, 65535)
		n, err := c.Read(buf)
		require.NoError(t, err)
		resp = buf[:n]
	}
	var m dnsmessage.Message
	require.NoError(t, m.Unpack(resp))
	return m
}

func addrsOf(m dnsmessage.Message) []string {
	var out []string
	for _, a := range m.Answers {
		if r, ok := a.Body.(*dnsmessage.AResource); ok {
			out = append(out, netip.AddrFrom4(r.A).String())
		}
	}
	return out
}

// TestServerForwardsOutsideTheClusterDomain: names outside the cluster
// domain go to the upstream and its answer comes back as it is (an
// address, NXDOMAIN, SERVFAIL); one that gets no answer is SERVFAIL once
// the forward timeout passes; the cluster domain is never forwarded.
func TestServerForwardsOutsideTheClusterDomain(t *testing.T) {
	up := startUpstream(t, "127.0.0.1:0")
	srv := startServer(t, dns.Config{Upstreams: []netip.AddrPort{up.addr()}, ForwardTimeout: 3 * time.Second, MaxForwards: 1})
	assert.Equal(t, []netip.AddrPort{up.addr()}, srv.Upstreams())
	for _, network := range []string{"udp", "tcp"} {
		m := ask(t, srv, network, "www.example.", dnsmessage.TypeA)
		assert.Equal(t, dnsmessage.RCodeSuccess, m.RCode, network)
		assert.Equal(t, []string{"192.0.2.10"}, addrsOf(m), network)
		assert.Equal(t, dnsmessage.RCodeNameError, ask(t, srv, network, "nx.example.", dnsmessage.TypeA).RCode, network)
		assert.Equal(t, dnsmessage.RCodeServerFailure, ask(t, srv, network, "fail.example.", dnsmessage.TypeA).RCode, network)
		assert.Equal(t, dnsmessage.RCodeNameError, ask(t, srv, network, "4.3.2.1.in-addr.arpa.", dnsmessage.TypePTR).RCode,
			"%s: a reverse name the cluster does not know falls through to the upstream", network)
	}
	before := up.queries.Load()
	m := ask(t, srv, "udp", "nope.default.svc.cluster.local.", dnsmessage.TypeA)
	assert.Equal(t, dnsmessage.RCodeNameError, m.RCode)
	assert.True(t, m.Authoritative)
	assert.Equal(t, before, up.queries.Load(), "the cluster domain is never forwarded")

	// An upstream that never answers: SERVFAIL after the timeout. While
	// that query holds the only forwarding slot, another is refused at
	// once with SERVFAIL instead of queueing.
	slow := make(chan dnsmessage.Message, 1)
	go func() {
		var m dnsmessage.Message
		defer func() { slow <- m }()
		m = ask(t, srv, "udp", "slow.example.", dnsmessage.TypeA)
	}()
	<-up.slowSeen
	before = up.queries.Load()
	assert.Equal(t, dnsmessage.RCodeServerFailure, ask(t, srv, "udp", "www.example.", dnsmessage.TypeA).RCode)
	assert.Equal(t, before, up.queries.Load(), "not forwarded: no slot free")
	assert.Equal(t, dnsmessage.RCodeServerFailure, (<-slow).RCode)
	assert.Equal(t, []string{"192.0.2.10"}, addrsOf(ask(t, srv, "udp", "www.example.", dnsmessage.TypeA)), "the slot is free again")
}

// TestServerForwardNextUpstream: an upstream that does not answer is
// passed over for the next.
func TestServerForwardNextUpstream(t *testing.T) {
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer silent.Close()
	up := startUpstream(t, "127.0.0.1:0")
	srv := startServer(t, dns.Config{Upstreams: []netip.AddrPort{netip.MustParseAddrPort(silent.LocalAddr().String()), up.addr()}})
	assert.Equal(t, []string{"192.0.2.10"}, addrsOf(ask(t, srv, "udp", "www.example.", dnsmessage.TypeA)))
}

func TestServerNoForward(t *testing.T) {
	up := startUpstream(t, "127.0.0.1:0")
	srv := startServer(t, dns.Config{Upstreams: []netip.AddrPort{up.addr()}, NoForward: true})
	assert.Equal(t, dnsmessage.RCodeNameError, ask(t, srv, "udp", "www.example.", dnsmessage.TypeA).RCode)
	assert.Zero(t, up.queries.Load())
	assert.Empty(t, srv.Upstreams())
}

// TestServerForwardsToResolvConf reads the upstreams from a resolv.conf,
// as CoreDNS's "forward . /etc/resolv.conf": nameservers are on port 53,
// so the upstream and the server take port 53 of two loopback addresses;
// the server's own address in the file is skipped.
func TestServerForwardsToResolvConf(t *testing.T) {
	base := fmt.Sprintf("127.53.%d.", rand.IntN(250)+1)
	up, self := base+"1", base+"2"
	pc, err := net.ListenPacket("udp", net.JoinHostPort(up, "53"))
	if errors.Is(err, syscall.EACCES) {
		testenv.Unavailable(t, "port 53 needs root")
	}
	require.NoError(t, err)
	pc.Close()
	u := startUpstream(t, net.JoinHostPort(up, "53"))
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(conf, []byte("# host resolvers\nsearch example\nnameserver "+self+"\nnameserver "+up+" ; the one\nnameserver "+up+"\noptions ndots:1\n"), 0o600))
	srv := startServer(t, dns.Config{Listen: net.JoinHostPort(self, "53"), ResolvConf: conf})
	assert.Equal(t, []netip.AddrPort{netip.MustParseAddrPort(up + ":53")}, srv.Upstreams(), "itself skipped, duplicates dropped")
	assert.Equal(t, []string{"192.0.2.10"}, addrsOf(ask(t, srv, "udp", "www.example.", dnsmessage.TypeA)))
	assert.Equal(t, dnsmessage.RCodeNameError, ask(t, srv, "tcp", "nx.example.", dnsmessage.TypeA).RCode)
	assert.NotZero(t, u.queries.Load())
}

func TestReadUpstreams(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(conf, []byte("nameserver 10.0.0.1\n#nameserver 10.0.0.9\nnameserver bogus\nnameserver ::1\nnameserver 10.0.0.1\ndomain x\n"), 0o600))
	got, err := dns.ReadUpstreams(conf)
	require.NoError(t, err)
	assert.Equal(t, []netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:53"), netip.MustParseAddrPort("[::1]:53")}, got)
	got, err = dns.ReadUpstreams(filepath.Join(t.TempDir(), "missing"))
	require.NoError(t, err)
	assert.Empty(t, got)
}

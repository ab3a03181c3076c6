package dns

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/proxy"
)

// Config configures a Server.
type Config struct {
	// Client reads Services and EndpointSlices. Required.
	Client *client.Client
	// Listen is the address served over UDP and TCP, e.g.
	// "10.244.0.1:53"; the port must be free for both. Required.
	Listen string
	// Domain is the cluster domain; empty means "cluster.local".
	Domain string
	// TTL of every record; zero means 5 seconds.
	TTL time.Duration
	// ResolvConf is the file whose nameservers are the upstream resolvers
	// for names outside the cluster domain, as CoreDNS's
	// "forward . /etc/resolv.conf"; "" means DefaultResolvConf. Read once
	// by Run. Upstreams that are this server itself are skipped.
	ResolvConf string
	// Upstreams, when set, are the upstream resolvers instead of those of
	// ResolvConf.
	Upstreams []netip.AddrPort
	// NoForward answers names outside the cluster domain with NXDOMAIN
	// instead of forwarding them (as it does with no upstream at all).
	NoForward bool
	// ForwardTimeout bounds a forwarded query over all upstreams (each
	// gets at most 2 s, then the next is asked); zero means 5 seconds.
	// With no answer in time the client gets SERVFAIL.
	ForwardTimeout time.Duration
	// MaxForwards caps the forwarded UDP queries in flight; beyond it a
	// query is answered SERVFAIL at once. Zero means 256.
	MaxForwards int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Server is the cluster's DNS server: it answers for the cluster domain
// from the Services and EndpointSlices it watches, and forwards other names to
// the node's upstream resolvers (Config.ResolvConf), passing their answer
// through. Make one with New; Run owns its goroutines.
type Server struct {
	cfg   Config
	cache *proxy.Cache
	zone  atomic.Pointer[Zone]
	ready chan struct{}
	udp   net.PacketConn
	tcp   net.Listener
	fwd   *forwarder // nil: nothing is forwarded
	slots chan struct{}
}

// New returns a server for cfg, or ErrInvalidConfig.
func New(cfg Config) (*Server, error) {
	if cfg.Client == nil || cfg.Listen == "" {
		return nil, fmt.Errorf("%w: Client and Listen are required", ErrInvalidConfig)
	}
	if cfg.Domain == "" {
		cfg.Domain = "cluster.local"
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ResolvConf == "" {
		cfg.ResolvConf = DefaultResolvConf
	}
	if cfg.ForwardTimeout <= 0 {
		cfg.ForwardTimeout = 5 * time.Second
	}
	if cfg.MaxForwards <= 0 {
		cfg.MaxForwards = 256
	}
	s := &Server{cfg: cfg, cache: proxy.NewCache(cfg.Client, cfg.Logger), ready: make(chan struct{}),
		slots: make(chan struct{}, cfg.MaxForwards)}
	s.zone.Store(Build(cfg.Domain, nil, nil))
	return s, nil
}

// Ready is closed once the server listens and has its first zone.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr is the UDP address served; valid after Ready.
func (s *Server) Addr() net.Addr { return s.udp.LocalAddr() }

// Upstreams returns the resolvers names outside the cluster domain are
// forwarded to; valid after Ready.
func (s *Server) Upstreams() []netip.AddrPort {
	if s.fwd == nil {
		return nil
	}
	return append([]netip.AddrPort(nil), s.fwd.upstreams...)
}

// Run listens, follows Services and EndpointSlices and answers queries until ctx
// is done. It fails when the address cannot be bound or the resolv.conf
// cannot be read.
func (s *Server) Run(ctx context.Context) error {
	if err := s.listen(ctx); err != nil {
		return err
	}
	if err := s.setUpstreams(); err != nil {
		s.udp.Close()
		s.tcp.Close()
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { <-ctx.Done(); s.udp.Close(); s.tcp.Close() })
	wg.Go(func() { s.serveUDP(ctx, &wg) })
	wg.Go(func() { s.serveTCP(ctx, &wg) })
	wg.Go(func() { s.cache.Run(ctx) })
	if !s.cache.WaitSynced(ctx) {
		return nil
	}
	s.rebuild()
	close(s.ready)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.cache.Changed():
			s.rebuild()
		}
	}
}

func (s *Server) rebuild() {
	svcs, eps := s.cache.Snapshot()
	s.zone.Store(Build(s.cfg.Domain, svcs, eps))
}

// listen binds UDP and TCP on the same address (the same port when the
// configured one is 0).
func (s *Server) listen(ctx context.Context) error {
	var lc net.ListenConfig
	u, err := lc.ListenPacket(ctx, "udp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("dns: listen udp %s: %w", s.cfg.Listen, err)
	}
	t, err := lc.Listen(ctx, "tcp", u.LocalAddr().String())
	if err != nil {
		u.Close()
		return fmt.Errorf("dns: listen tcp %s: %w", u.LocalAddr(), err)
	}
	s.udp, s.tcp = u, t
	return nil
}

// setUpstreams settles the forwarder: Config.Upstreams or the
// resolv.conf's nameservers, less this server itself.
func (s *Server) setUpstreams() error {
	if s.cfg.NoForward {
		return nil
	}
	ups := s.cfg.Upstreams
	if ups == nil {
		var err error
		if ups, err = ReadUpstreams(s.cfg.ResolvConf); err != nil {
			return err
		}
	}
	self, err := netip.ParseAddrPort(s.udp.LocalAddr().String())
	if err != nil {
		return fmt.Errorf("dns: own address: %w", err)
	}
	self = netip.AddrPortFrom(self.Addr().Unmap(), self.Port())
	all := len(ups)
	ups = withoutSelf(ups, self, isLocalAddr)
	if skipped := all - len(ups); skipped > 0 {
		s.cfg.Logger.Info("dns: upstreams that are this server skipped", "skipped", skipped, "self", self)
	}
	if len(ups) > 0 {
		s.fwd = &forwarder{upstreams: ups, timeout: s.cfg.ForwardTimeout}
	}
	return nil
}

// serveUDP answers datagrams until the socket closes. Forwarded queries
// are answered from goroutines of wg (at most MaxForwards at once), so a
// slow upstream holds up nobody else.
func (s *Server) serveUDP(ctx context.Context, wg *sync.WaitGroup) {
	buf := make([]byte, 65535)
	ttl := uint32(s.cfg.TTL / time.Second)
	for {
		n, addr, err := s.udp.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		z := s.zone.Load()
		if s.fwd == nil || !needsForward(z, buf[:n]) {
			if out := Answer(z, buf[:n], ttl, maxUDPSize); out != nil {
				_, _ = s.udp.WriteTo(out, addr)
			}
			continue
		}
		query := append([]byte(nil), buf[:n]...)
		select {
		case s.slots <- struct{}{}:
			wg.Go(func() {
				out := s.fwd.forward(ctx, query, "udp")
				<-s.slots // free before answering: the client may ask again at once
				if out != nil {
					_, _ = s.udp.WriteTo(out, addr)
				}
			})
		default:
			if out := serverFailure(query); out != nil {
				_, _ = s.udp.WriteTo(out, addr)
			}
		}
	}
}

func (s *Server) serveTCP(ctx context.Context, wg *sync.WaitGroup) {
	for {
		c, err := s.tcp.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		wg.Go(func() { s.serveConn(ctx, c) })
	}
}

// serveConn answers length-prefixed queries on one TCP connection until
// the client closes it, it idles 10 seconds, or ctx ends.
func (s *Server) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	ttl := uint32(s.cfg.TTL / time.Second)
	var lenBuf [2]byte
	for {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, lenBuf[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(lenBuf[:]))
		if _, err := io.ReadFull(c, msg); err != nil {
			return
		}
		var out []byte
		if z := s.zone.Load(); s.fwd != nil && needsForward(z, msg) {
			out = s.fwd.forward(ctx, msg, "tcp")
		} else {
			out = Answer(z, msg, ttl, 0)
		}
		if out == nil {
			return
		}
		if _, err := c.Write(binary.BigEndian.AppendUint16(nil, uint16(len(out)))); err != nil {
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

package dns

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/proxy"
	"github.com/orkit/orkit/serving"
)

// Config configures a Server.
type Config struct {
	// Client reads Services and Endpoints. Required.
	Client *client.Client
	// Listen is the address served over UDP and TCP, e.g.
	// "10.244.0.1:53"; the port must be free for both. Required.
	Listen string
	// Domain is the cluster domain; empty means "cluster.local".
	Domain string
	// TTL of every record; zero means 5 seconds.
	TTL time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Server is the cluster's authoritative DNS server: it answers for the
// cluster domain from the Services and Endpoints it watches, and forwards
// nothing (other names get NXDOMAIN). Make one with New; Run owns its
// goroutines.
type Server struct {
	cfg   Config
	cache *proxy.Cache
	zone  atomic.Pointer[Zone]
	ready chan struct{}
	udp   net.PacketConn
	tcp   net.Listener
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
	s := &Server{cfg: cfg, cache: proxy.NewCache(cfg.Client, cfg.Logger), ready: make(chan struct{})}
	s.zone.Store(Build(cfg.Domain, nil, nil))
	return s, nil
}

// Ready is closed once the server listens and has its first zone.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr is the UDP address served; valid after Ready.
func (s *Server) Addr() net.Addr { return s.udp.LocalAddr() }

// Run listens, follows Services and Endpoints and answers queries until ctx
// is done. It fails when the address cannot be bound.
func (s *Server) Run(ctx context.Context) error {
	if err := s.listen(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { <-ctx.Done(); s.udp.Close(); s.tcp.Close() })
	wg.Go(func() { s.serveUDP() })
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
	// Every TCP client is unauthenticated: serving's cap bounds the
	// connections one address holds.
	s.udp, s.tcp = u, serving.NewGuard(t, serving.Limits{})
	return nil
}

func (s *Server) serveUDP() {
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
		if out := Answer(s.zone.Load(), buf[:n], ttl, maxUDPSize); out != nil {
			_, _ = s.udp.WriteTo(out, addr)
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
// the client closes it, it idles 10 seconds, or ctx ends. The listener
// (a serving.Guard) keeps at most serving.DefaultMaxUnauthenticatedConns
// connections per client address, closing the oldest to make room.
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
		out := Answer(s.zone.Load(), msg, ttl, 0)
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

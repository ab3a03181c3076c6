package serving

import (
	"container/list"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// Guard is a net.Listener that caps, per client IP address, the
// connections that have not authenticated: a connection counts from
// Accept until a request on it authenticates (Authenticated) or it
// closes. When a client at its cap connects again, Guard closes that
// client's oldest idle unauthenticated connection (no request in flight)
// to make room, or, when all of them are busy, refuses the new one by
// closing it at once. So a client holding thousands of idle keep-alive
// connections keeps at most Limits.MaxUnauthenticatedConns, and a new
// connection from the same address (which may well authenticate) still
// gets in.
//
// Serve an http.Server on the Guard after Attach, which lets the Guard
// see which connections are idle; connections of other protocols count as
// idle between Accept and Close. Guard is safe for concurrent use; Close
// closes the listener (connections are the server's to close).
type Guard struct {
	net.Listener
	max int

	mu      sync.Mutex
	clients map[string]*list.List // client IP → its unauthenticated conns, oldest first

	refused, evicted atomic.Int64
}

// NewGuard wraps ln with l's per-client cap (l.MaxUnauthenticatedConns;
// negative: no cap, the Guard only tracks).
func NewGuard(ln net.Listener, l Limits) *Guard {
	l = l.withDefaults()
	return &Guard{Listener: ln, max: l.MaxUnauthenticatedConns, clients: map[string]*list.List{}}
}

// conn is a connection the Guard accepted.
type conn struct {
	net.Conn
	g      *Guard
	client string
	authed atomic.Bool // Authenticated ran: the fast path skips g.mu
	// The fields below are guarded by g.mu.
	elem *list.Element // in g.clients[client] while unauthenticated
	busy bool          // a request is in flight
	used bool          // a request was answered on it
	once sync.Once
}

// Close closes the connection and forgets it.
func (c *conn) Close() error {
	c.once.Do(func() { c.g.forget(c) })
	return c.Conn.Close()
}

// Accept returns the next connection the cap admits; refused connections
// are closed here and never returned.
func (g *Guard) Accept() (net.Conn, error) {
	for {
		nc, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &conn{Conn: nc, g: g, client: clientIP(nc.RemoteAddr())}
		victim, ok := g.admit(c)
		if victim != nil {
			g.evicted.Add(1)
			_ = victim.Close()
		}
		if !ok {
			g.refused.Add(1)
			_ = nc.Close()
			continue
		}
		return c, nil
	}
}

// admit counts c against its client's cap, choosing an idle connection to
// evict when the client is at it; ok is false when c must be refused.
func (g *Guard) admit(c *conn) (victim *conn, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	l := g.clients[c.client]
	if l == nil {
		l = list.New()
		g.clients[c.client] = l
	}
	if g.max > 0 && l.Len() >= g.max {
		victim = oldestIdle(l, true)
		if victim == nil {
			victim = oldestIdle(l, false)
		}
		if victim == nil {
			return nil, false
		}
		g.dropLocked(victim)
	}
	c.elem = l.PushBack(c)
	return victim, true
}

// oldestIdle is the oldest connection in l with no request in flight;
// with used, only among those that answered a request already.
func oldestIdle(l *list.List, used bool) *conn {
	for e := l.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*conn); !c.busy && (c.used || !used) {
			return c
		}
	}
	return nil
}

// dropLocked stops counting c against its client.
func (g *Guard) dropLocked(c *conn) {
	if c.elem == nil {
		return
	}
	l := g.clients[c.client]
	l.Remove(c.elem)
	c.elem = nil
	if l.Len() == 0 {
		delete(g.clients, c.client)
	}
}

// forget drops a closing connection.
func (g *Guard) forget(c *conn) {
	g.mu.Lock()
	defer g.mu.Unlock()

	g.dropLocked(c)
}

// Attach makes srv tell the Guard which of its connections are idle and
// puts each connection into its requests' contexts (for Authenticated).
// It chains srv's own ConnState and ConnContext hooks.
func (g *Guard) Attach(srv *http.Server) {
	prevState, prevCtx := srv.ConnState, srv.ConnContext
	srv.ConnState = func(nc net.Conn, st http.ConnState) {
		if c := unwrap(nc); c != nil && c.g == g {
			g.mu.Lock()
			c.busy = st == http.StateActive
			c.used = c.used || st == http.StateIdle
			g.mu.Unlock()
		}
		if prevState != nil {
			prevState(nc, st)
		}
	}
	srv.ConnContext = func(ctx context.Context, nc net.Conn) context.Context {
		if prevCtx != nil {
			ctx = prevCtx(ctx, nc)
		}
		if c := unwrap(nc); c != nil {
			ctx = context.WithValue(ctx, connKey{}, c)
		}
		return ctx
	}
}

// connKey keys a request context's *conn.
type connKey struct{}

// Authenticated marks the connection that carries ctx's request (a
// request context of a server Attached to a Guard) as authenticated: it
// no longer counts against its client's cap. Call it once a request has
// authenticated; elsewhere it does nothing.
func Authenticated(ctx context.Context) {
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil || c.authed.Swap(true) {
		return
	}
	c.g.mu.Lock()
	c.g.dropLocked(c)
	c.g.mu.Unlock()
}

// Stats are a Guard's counters.
type Stats struct {
	// Unauthenticated counts the connections now counted against caps;
	// Idle, those of them that answered a request and have none in
	// flight (the first to be evicted).
	Unauthenticated, Idle int
	// Refused and Evicted count connections closed at Accept because
	// their client was at its cap, and idle ones closed to make room.
	Refused, Evicted int64
}

// Stats returns the Guard's counters.
func (g *Guard) Stats() Stats {
	st := Stats{Refused: g.refused.Load(), Evicted: g.evicted.Load()}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range g.clients {
		st.Unauthenticated += l.Len()
		for e := l.Front(); e != nil; e = e.Next() {
			if c := e.Value.(*conn); c.used && !c.busy {
				st.Idle++
			}
		}
	}
	return st
}

// unwrap finds the Guard's conn under nc (a *tls.Conn for HTTPS).
func unwrap(nc net.Conn) *conn {
	for {
		switch c := nc.(type) {
		case *conn:
			return c
		case *tls.Conn:
			nc = c.NetConn()
		default:
			return nil
		}
	}
}

// clientIP is the address part of a remote address (the whole string
// when it has no port).
func clientIP(a net.Addr) string {
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

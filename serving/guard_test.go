package serving_test

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/pki"
	"github.com/orkit/orkit/serving"
)

// server is a TLS server behind a Guard whose handler treats a verified
// client certificate as authentication.
type server struct {
	addr   string
	guard  *serving.Guard
	client *tls.Config // verifies the server, no certificate
	authed *tls.Config // with a client certificate
}

func startServer(t *testing.T, l serving.Limits) *server {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	require.NoError(t, err)
	kp, err := ca.IssueServing("server", nil, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := kp.TLSCertificate()
	require.NoError(t, err)
	ckp, err := ca.IssueClient("user")
	require.NoError(t, err)
	ccert, err := ckp.TLSCertificate()
	require.NoError(t, err)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	g := serving.NewGuard(ln, l)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
			serving.Authenticated(r.Context())
		}
		_, _ = io.WriteString(w, "ok")
	})
	srv := l.HTTPServer(h, &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: ca.Pool(),
		ClientAuth: tls.VerifyClientCertIfGiven, NextProtos: []string{"h2", "http/1.1"}}, log.New(io.Discard, "", 0))
	g.Attach(srv)
	go func() { _ = srv.ServeTLS(g, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return &server{addr: ln.Addr().String(), guard: g,
		client: &tls.Config{RootCAs: ca.Pool(), NextProtos: []string{"http/1.1"}},
		authed: &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{ccert}, NextProtos: []string{"http/1.1"}}}
}

// keepAlive opens a connection, sends one keep-alive request and reads
// the answer; the connection stays open for the caller. It returns nil
// when the server closed the connection before answering.
func keepAlive(t *testing.T, addr string, cfg *tls.Config) net.Conn {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		return nil
	}
	if _, err := io.WriteString(c, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		c.Close()
		return nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		c.Close()
		return nil
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return c
}

// open reports whether the server still holds c open (a closed one reads
// EOF at once).
func open(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestIdleUnauthenticatedConnectionsAreCapped: one client opens 2,000
// keep-alive connections without credentials and leaves them idle; the
// server keeps at most the cap of them open, and a client with a
// certificate from the same address is served throughout.
func TestIdleUnauthenticatedConnectionsAreCapped(t *testing.T) {
	s := startServer(t, serving.Limits{MaxUnauthenticatedConns: 50})
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	stop := make(chan struct{})
	served := 0
	wg.Go(func() { // an authenticated client, one connection per request
		for {
			select {
			case <-stop:
				return
			default:
			}
			if c := keepAlive(t, s.addr, s.authed); c != nil {
				mu.Lock()
				served++
				mu.Unlock()
				c.Close()
			}
		}
	})
	sem := make(chan struct{}, 64)
	var flood sync.WaitGroup
	for range 2000 {
		sem <- struct{}{}
		flood.Go(func() {
			defer func() { <-sem }()
			if c := keepAlive(t, s.addr, s.client); c != nil {
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	flood.Wait()
	close(stop)
	wg.Wait()
	stillOpen := 0
	for _, c := range conns {
		if open(c) {
			stillOpen++
		}
		c.Close()
	}
	st := s.guard.Stats()
	t.Logf("2000 idle connections: %d answered, %d still open; guard %+v; authenticated requests served meanwhile: %d",
		len(conns), stillOpen, st, served)
	assert.LessOrEqual(t, stillOpen, 50, "at most the cap stays open")
	assert.Positive(t, st.Evicted+st.Refused)
	assert.Positive(t, served, "authenticated clients are served while the flood is open")
	c := keepAlive(t, s.addr, s.authed)
	require.NotNil(t, c, "an authenticated client is served after the flood")
	c.Close()
}

// TestEvictionSparesConnectionsNotYetUsed: at the cap, the Guard evicts
// a connection that answered a request without authenticating before an
// older one still in its TLS handshake, which may yet authenticate.
func TestEvictionSparesConnectionsNotYetUsed(t *testing.T) {
	s := startServer(t, serving.Limits{MaxUnauthenticatedConns: 2})
	slow, err := net.Dial("tcp", s.addr) // connected, no ClientHello yet
	require.NoError(t, err)
	defer slow.Close()
	used := keepAlive(t, s.addr, s.client)
	require.NotNil(t, used)
	defer used.Close()
	// The server marks a connection idle just after writing its answer.
	require.Eventually(t, func() bool { return s.guard.Stats().Idle == 1 }, 10*time.Second, time.Millisecond)
	third := keepAlive(t, s.addr, s.client)
	require.NotNil(t, third, "a new connection at the cap gets in")
	defer third.Close()

	require.Eventually(t, func() bool { return !open(used) }, 10*time.Second, 10*time.Millisecond,
		"the used idle connection is evicted")
	assert.Equal(t, int64(1), s.guard.Stats().Evicted)
	assert.True(t, open(slow), "the connection still in its handshake is kept")
	require.NoError(t, slow.SetReadDeadline(time.Time{})) // open set one
	cfg := s.authed.Clone()
	cfg.ServerName = "127.0.0.1"
	tc := tls.Client(slow, cfg)
	require.NoError(t, tc.Handshake())
	_, err = io.WriteString(tc, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
	require.NoError(t, err, "the slow client authenticates on the connection it kept")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestAuthenticatedConnectionsAreNotCapped: connections that
// authenticated do not count against the cap.
func TestAuthenticatedConnectionsAreNotCapped(t *testing.T) {
	s := startServer(t, serving.Limits{MaxUnauthenticatedConns: 5})
	var conns []net.Conn
	for range 30 {
		c := keepAlive(t, s.addr, s.authed)
		require.NotNil(t, c)
		conns = append(conns, c)
	}
	for i, c := range conns {
		assert.True(t, open(c), "connection %d", i)
		c.Close()
	}
	assert.Zero(t, s.guard.Stats().Evicted)
}

// TestTimeouts: an idle keep-alive connection is closed after IdleTimeout
// and a connection that sends nothing after ReadHeaderTimeout.
func TestTimeouts(t *testing.T) {
	s := startServer(t, serving.Limits{IdleTimeout: 200 * time.Millisecond, ReadHeaderTimeout: 200 * time.Millisecond})
	idle := keepAlive(t, s.addr, s.authed)
	require.NotNil(t, idle)
	defer idle.Close()
	silent, err := net.Dial("tcp", s.addr)
	require.NoError(t, err)
	defer silent.Close()
	for name, c := range map[string]net.Conn{"idle keep-alive": idle, "silent": silent} {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "%s: closed by the server", name)
	}
}

// TestDefaultsAreSet: the zero Limits give every timeout.
func TestDefaultsAreSet(t *testing.T) {
	srv := serving.Limits{}.HTTPServer(http.NotFoundHandler(), nil, nil)
	assert.Equal(t, serving.DefaultIdleTimeout, srv.IdleTimeout)
	assert.Equal(t, serving.DefaultReadHeaderTimeout, srv.ReadHeaderTimeout)
	assert.Equal(t, serving.DefaultMaxHeaderBytes, srv.MaxHeaderBytes)
	off := serving.Limits{IdleTimeout: -1, ReadHeaderTimeout: -1}.HTTPServer(http.NotFoundHandler(), nil, nil)
	assert.Zero(t, off.IdleTimeout)
	assert.Zero(t, off.ReadHeaderTimeout)
}

package apiserver

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keepAliveGet opens a TLS connection to ts with cfg, sends one keep-alive
// GET of path and reads the answer; the connection stays open. nil when
// the server closed it first.
func keepAliveGet(ts *testServer, cfg *tls.Config, path string) net.Conn {
	c, err := tls.Dial("tcp", ts.url[len("https://"):], cfg)
	if err != nil {
		return nil
	}
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
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

// stillOpen reports whether the server holds c open.
func stillOpen(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestUnauthenticatedConnectionFlood: one client opens 2,000 keep-alive
// connections without credentials (each asks /version, which needs none)
// and leaves them idle. The API server keeps at most
// serving.DefaultMaxUnauthenticatedConns of them, while a system:masters
// client from the same address is served throughout.
func TestUnauthenticatedConnectionFlood(t *testing.T) {
	ts := newTestServer(t, nil)
	anon := ts.anon.Transport.(*http.Transport).TLSClientConfig.Clone()
	anon.NextProtos = []string{"http/1.1"}
	var mu sync.Mutex
	var conns []net.Conn
	sem := make(chan struct{}, 64)
	var flood sync.WaitGroup
	stop := make(chan struct{})
	var admin sync.WaitGroup
	served, failed := 0, 0
	var firstFailure string
	admin.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			resp, err := ts.http.Get(ts.url + "/api/v1/namespaces/default/configmaps")
			mu.Lock()
			switch {
			case err == nil && resp.StatusCode == http.StatusOK:
				served++
			case failed == 0 && err != nil:
				failed, firstFailure = 1, err.Error()
			case failed == 0:
				failed, firstFailure = 1, resp.Status
			default:
				failed++
			}
			mu.Unlock()
			if err == nil {
				resp.Body.Close()
			}
		}
	})
	for range 2000 {
		sem <- struct{}{}
		flood.Go(func() {
			defer func() { <-sem }()
			if c := keepAliveGet(ts, anon, "/version"); c != nil {
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	flood.Wait()
	close(stop)
	admin.Wait()
	// A closed connection stays closed, so recount the open ones until at
	// most the cap remain: an evicted connection's close may reach the
	// client only after its server goroutine ran again, late on a loaded
	// machine.
	open := conns
	for deadline := time.Now().Add(30 * time.Second); ; {
		var still []net.Conn
		for _, c := range open {
			if stillOpen(c) {
				still = append(still, c)
			} else {
				c.Close()
			}
		}
		open = still
		if len(open) <= 100 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range open {
		c.Close()
	}
	t.Logf("2,000 idle unauthenticated connections: %d answered, %d still open; admin requests meanwhile: %d served, %d failed",
		len(conns), len(open), served, failed)
	assert.LessOrEqual(t, len(open), 100)
	assert.Positive(t, served)
	assert.Zero(t, failed, "the authenticated client is always served; the first failure: %s", firstFailure)
}

// TestIdleConnectionsTimeOut: the API server closes a keep-alive
// connection idle for Config.Serving.IdleTimeout, and one that sends
// nothing after ReadHeaderTimeout.
func TestIdleConnectionsTimeOut(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.Serving.IdleTimeout = 200 * time.Millisecond
		c.Serving.ReadHeaderTimeout = 200 * time.Millisecond
	})
	anon := ts.anon.Transport.(*http.Transport).TLSClientConfig.Clone()
	anon.NextProtos = []string{"http/1.1"}
	idle := keepAliveGet(ts, anon, "/version")
	require.NotNil(t, idle)
	defer idle.Close()
	silent, err := net.Dial("tcp", ts.url[len("https://"):])
	require.NoError(t, err)
	defer silent.Close()
	for name, c := range map[string]net.Conn{"idle keep-alive": idle, "silent": silent} {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "%s: closed by the server", name)
	}
}

package serving

import (
	"crypto/tls"
	"log"
	"net/http"
	"time"
)

// Defaults of Limits.
const (
	// DefaultReadHeaderTimeout bounds the TLS handshake and a request's
	// headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle this long, as
	// kube-apiserver (and Go's http.DefaultTransport on the client side).
	DefaultIdleTimeout = 90 * time.Second
	// DefaultMaxHeaderBytes is kube-apiserver's header limit.
	DefaultMaxHeaderBytes = 1 << 20
	// DefaultMaxUnauthenticatedConns is how many connections one client
	// address may hold before any of them has authenticated.
	DefaultMaxUnauthenticatedConns = 100
)

// Limits are a server's protections. The zero value of each field selects
// its documented default; a negative value turns a protection off.
type Limits struct {
	// ReadHeaderTimeout bounds the TLS handshake and reading a request's
	// headers (a connection that sends nothing is closed after it). Zero
	// means DefaultReadHeaderTimeout (10 s).
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection (HTTP/1.1 or HTTP/2)
	// with no request in flight for this long. Zero means
	// DefaultIdleTimeout (90 s).
	IdleTimeout time.Duration
	// MaxHeaderBytes caps a request's headers. Zero means
	// DefaultMaxHeaderBytes (1 MiB).
	MaxHeaderBytes int
	// MaxUnauthenticatedConns caps, per client IP address, the
	// connections none of whose requests has authenticated (see Guard).
	// Zero means DefaultMaxUnauthenticatedConns (100).
	MaxUnauthenticatedConns int
}

// withDefaults fills zero fields.
func (l Limits) withDefaults() Limits {
	if l.ReadHeaderTimeout == 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.IdleTimeout == 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes == 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxUnauthenticatedConns == 0 {
		l.MaxUnauthenticatedConns = DefaultMaxUnauthenticatedConns
	}
	return l
}

// positive maps a negative (off) duration to 0, net/http's "none".
func positive(d time.Duration) time.Duration { return max(d, 0) }

// HTTPServer returns an http.Server for h with l's timeouts and header
// limit (HTTP/2 connections get the same idle timeout) and tlsCfg (nil
// for plain HTTP). Serve it on a Guard (Attach) to cap connections per
// client; errorLog may be nil.
func (l Limits) HTTPServer(h http.Handler, tlsCfg *tls.Config, errorLog *log.Logger) *http.Server {
	l = l.withDefaults()
	return &http.Server{
		Handler:           h,
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: positive(l.ReadHeaderTimeout),
		IdleTimeout:       positive(l.IdleTimeout),
		MaxHeaderBytes:    max(l.MaxHeaderBytes, 0),
		ErrorLog:          errorLog,
	}
}

package client

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenRereadInterval bounds how long a token file's contents are trusted
// when its size and modification time have not changed.
const tokenRereadInterval = time.Minute

// tlsConfig builds the client TLS settings of cfg: the CA bundle, the
// client certificate, the server name. It never returns a config that
// silently skips verification unless cfg.Insecure asks for it.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.ServerName, InsecureSkipVerify: cfg.Insecure} //nolint:gosec // only when the kubeconfig asks
	if cfg.Insecure && len(cfg.CAData) > 0 {
		return nil, fmt.Errorf("%w: Insecure may not be combined with CAData", ErrInvalidConfig)
	}
	if len(cfg.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAData) {
			return nil, fmt.Errorf("%w: CAData holds no PEM certificate", ErrInvalidConfig)
		}
		tc.RootCAs = pool
	}
	if (len(cfg.CertData) == 0) != (len(cfg.KeyData) == 0) {
		return nil, fmt.Errorf("%w: CertData and KeyData go together", ErrInvalidConfig)
	}
	if len(cfg.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate: %w", ErrInvalidConfig, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if cfg.GetClientCertificate != nil {
		if len(cfg.CertData) > 0 {
			return nil, fmt.Errorf("%w: GetClientCertificate may not be combined with CertData", ErrInvalidConfig)
		}
		tc.GetClientCertificate = cfg.GetClientCertificate
	}
	return tc, nil
}

// newTransport returns the HTTP/2-capable transport for cfg, wrapped in
// the authentication and user-agent layer.
func newTransport(cfg *Config) (http.RoundTripper, error) {
	tc, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	if (cfg.BearerToken != "" || cfg.BearerTokenFile != "") && (cfg.Username != "" || cfg.Password != "") {
		return nil, fmt.Errorf("%w: a bearer token and basic credentials may not be combined", ErrInvalidConfig)
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       tc,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   25,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return wrapAuth(base, cfg), nil
}

// wrapAuth adds the credentials and the user agent of cfg to every request
// sent through base.
func wrapAuth(base http.RoundTripper, cfg *Config) http.RoundTripper {
	ua := cfg.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	return &authTransport{
		base: base, userAgent: ua, username: cfg.Username, password: cfg.Password,
		tokens: &tokenSource{static: cfg.BearerToken, path: cfg.BearerTokenFile, now: time.Now},
	}
}

// authTransport sets Authorization and User-Agent. A request that already
// carries an Authorization header keeps it.
type authTransport struct {
	base               http.RoundTripper
	userAgent          string
	username, password string
	tokens             *tokenSource
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Header.Get("User-Agent") == "" {
		r.Header.Set("User-Agent", t.userAgent)
	}
	if r.Header.Get("Authorization") == "" {
		tok, err := t.tokens.token()
		if err != nil {
			return nil, err
		}
		switch {
		case tok != "":
			r.Header.Set("Authorization", "Bearer "+tok)
		case t.username != "" || t.password != "":
			r.SetBasicAuth(t.username, t.password)
		}
	}
	return t.base.RoundTrip(r)
}

// tokenSource yields the bearer token: the file's contents when a file is
// set (re-read when its size or modification time changes, and at least
// every tokenRereadInterval), else the static token. Safe for concurrent use.
type tokenSource struct {
	static string
	path   string
	now    func() time.Time

	mu      sync.Mutex
	cached  string
	modTime time.Time
	size    int64
	readAt  time.Time
}

func (s *tokenSource) token() (string, error) {
	if s.path == "" {
		return s.static, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(s.path)
	if err != nil {
		return s.fallback(fmt.Errorf("read token file: %w", err))
	}
	now := s.now()
	if s.cached != "" && fi.ModTime().Equal(s.modTime) && fi.Size() == s.size && now.Sub(s.readAt) < tokenRereadInterval {
		return s.cached, nil
	}
	if fi.Size() > maxKubeconfigBytes {
		return s.fallback(fmt.Errorf("%w: token file %s is %d bytes", ErrInvalidConfig, s.path, fi.Size()))
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return s.fallback(fmt.Errorf("read token file: %w", err))
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return s.fallback(fmt.Errorf("%w: token file %s is empty", ErrInvalidConfig, s.path))
	}
	s.cached, s.modTime, s.size, s.readAt = tok, fi.ModTime(), fi.Size(), now
	return tok, nil
}

// fallback returns the last good token, else the static one, else err.
func (s *tokenSource) fallback(err error) (string, error) {
	if s.cached != "" {
		return s.cached, nil
	}
	if s.static != "" {
		return s.static, nil
	}
	return "", err
}

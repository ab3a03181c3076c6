package authn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxDocumentSize bounds discovery documents and key sets.
const maxDocumentSize = 1 << 20

// keyCache holds an OIDC provider's verification keys. Fetches are
// serialized by sem and rate-limited by MinRefreshInterval; readers take
// mu only to copy the current set. No goroutines.
type keyCache struct {
	cfg *Config
	sem chan struct{} // one fetch at a time; select-able against ctx

	mu          sync.RWMutex
	jwksURI     string
	keys        []verificationKey
	gen         uint64 // bumped on every successful fetch
	lastAttempt time.Time
	lastErr     error
}

func newKeyCache(cfg *Config) *keyCache {
	return &keyCache{cfg: cfg, sem: make(chan struct{}, 1)}
}

// snapshot returns the current keys and their generation.
func (c *keyCache) snapshot() ([]verificationKey, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.keys, c.gen
}

// verify checks t's signature against the cached keys, refetching the set
// once if no key fits (an unknown kid, or rotation of keys without kids).
func (c *keyCache) verify(ctx context.Context, t *JWT) error {
	keys, gen := c.snapshot()
	err := verifyWith(keys, t)
	if !errors.Is(err, ErrUnknownKey) && !(t.Header.Kid == "" && errors.Is(err, ErrBadSignature)) {
		return err
	}
	keys, ferr := c.refresh(ctx, gen)
	if ferr != nil {
		return ferr
	}
	return verifyWith(keys, t)
}

// verifyWith tries the keys that fit t's kid and algorithm. No fitting
// key is ErrUnknownKey.
func verifyWith(keys []verificationKey, t *JWT) error {
	tried := false
	var last error
	for _, k := range keys {
		if k.alg != t.Header.Alg || (t.Header.Kid != "" && k.kid != t.Header.Kid) {
			continue
		}
		tried = true
		if last = t.Verify(k.key); last == nil {
			return nil
		}
	}
	if !tried {
		return fmt.Errorf("%w: kid %q (%s)", ErrUnknownKey, t.Header.Kid, t.Header.Alg)
	}
	return last
}

// refresh fetches the key set unless another caller already did since
// generation seen, or the last attempt was less than MinRefreshInterval
// ago; in both cases it returns what is cached (or the cached error).
func (c *keyCache) refresh(ctx context.Context, seen uint64) ([]verificationKey, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, ctx.Err())
	}
	defer func() { <-c.sem }()

	c.mu.RLock()
	keys, gen, last, lastErr := c.keys, c.gen, c.lastAttempt, c.lastErr
	c.mu.RUnlock()
	now := c.cfg.Now()
	if gen != seen {
		return keys, nil
	}
	if !last.IsZero() && now.Sub(last) < c.cfg.MinRefreshInterval {
		if lastErr != nil && keys == nil {
			return nil, lastErr
		}
		return keys, nil
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.FetchTimeout)
	defer cancel()
	newKeys, err := c.fetch(fctx)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastAttempt = now
	c.lastErr = err
	if err != nil {
		if c.keys != nil {
			return c.keys, nil // keep serving the last good set
		}
		return nil, err
	}
	c.keys = newKeys
	c.gen++
	return newKeys, nil
}

// fetch discovers jwks_uri (once) and downloads the key set.
func (c *keyCache) fetch(ctx context.Context) ([]verificationKey, error) {
	c.mu.RLock()
	uri := c.jwksURI
	c.mu.RUnlock()
	if uri == "" {
		var err error
		if uri, err = c.discover(ctx); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.jwksURI = uri
		c.mu.Unlock()
	}
	body, err := c.get(ctx, uri)
	if err != nil {
		return nil, err
	}
	keys, err := parseJWKS(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrProviderUnavailable, uri, err)
	}
	return keys, nil
}

// discover reads <issuer>/.well-known/openid-configuration and returns
// its jwks_uri, checking that the document names the same issuer.
func (c *keyCache) discover(ctx context.Context) (string, error) {
	wellKnown := strings.TrimSuffix(c.cfg.IssuerURL, "/") + "/.well-known/openid-configuration"
	body, err := c.get(ctx, wellKnown)
	if err != nil {
		return "", err
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrProviderUnavailable, wellKnown, err)
	}
	if doc.Issuer != c.cfg.IssuerURL {
		return "", fmt.Errorf("%w: discovery names issuer %q, want %q", ErrProviderUnavailable, doc.Issuer, c.cfg.IssuerURL)
	}
	if u, err := url.Parse(doc.JWKSURI); err != nil || u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%w: jwks_uri %q is not an https URL", ErrProviderUnavailable, doc.JWKSURI)
	}
	return doc.JWKSURI, nil
}

// get fetches uri, requiring 200 and at most maxDocumentSize bytes.
func (c *keyCache) get(ctx context.Context, uri string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.cfg.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s: %s", ErrProviderUnavailable, uri, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrProviderUnavailable, uri, err)
	}
	if len(body) > maxDocumentSize {
		return nil, fmt.Errorf("%w: GET %s: larger than %d bytes", ErrProviderUnavailable, uri, maxDocumentSize)
	}
	return body, nil
}

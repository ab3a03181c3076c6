package authz

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/api/meta"
)

// Defaults of Config's zero values.
const (
	DefaultAllowTTL     = 5 * time.Minute
	DefaultDenyTTL      = 30 * time.Second
	DefaultTimeout      = 10 * time.Second
	DefaultCacheEntries = 10000
	maxReviewResponse   = 1 << 20
)

// Config configures the webhook authorizer, as kube-apiserver's
// --authorization-webhook-* flags do. Zero values mean the defaults.
type Config struct {
	// URL receives the POSTed SubjectAccessReview. Required (http or https).
	URL string
	// TLS configures the connection (CA, client certificate); nil means
	// the system defaults.
	TLS *tls.Config
	// AllowTTL is how long an Allow is cached (DefaultAllowTTL if 0).
	AllowTTL time.Duration
	// DenyTTL is how long a Deny or NoOpinion is cached (DefaultDenyTTL if 0).
	DenyTTL time.Duration
	// Timeout bounds one review (DefaultTimeout if 0).
	Timeout time.Duration
	// CacheEntries bounds the decision cache; the least recently used
	// entry is evicted (DefaultCacheEntries if 0).
	CacheEntries int
	// Client sends the reviews; nil means one built from TLS. A test seam.
	Client *http.Client
	// Now is the clock for cache expiry; nil means time.Now.
	Now func() time.Time
}

// WebhookAuthorizer asks a remote service by POSTing an
// authorization.k8s.io/v1 SubjectAccessReview, and caches its answers by
// request attributes. Safe for concurrent use; it starts no goroutines.
type WebhookAuthorizer struct {
	cfg   Config
	cache *decisionCache
}

var _ Authorizer = (*WebhookAuthorizer)(nil)

// Webhook validates cfg and returns the authorizer. It does not contact
// the service. Errors wrap ErrInvalidConfig.
func Webhook(cfg Config) (*WebhookAuthorizer, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: webhook URL %q must be an http(s) URL", ErrInvalidConfig, cfg.URL)
	}
	cfg.AllowTTL = orDefault(cfg.AllowTTL, DefaultAllowTTL)
	cfg.DenyTTL = orDefault(cfg.DenyTTL, DefaultDenyTTL)
	cfg.Timeout = orDefault(cfg.Timeout, DefaultTimeout)
	if cfg.CacheEntries <= 0 {
		cfg.CacheEntries = DefaultCacheEntries
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.TLS != nil {
			tr.TLSClientConfig = cfg.TLS.Clone()
		}
		cfg.Client = &http.Client{Transport: tr, Timeout: cfg.Timeout}
	}
	return &WebhookAuthorizer{cfg: cfg, cache: newDecisionCache(cfg.CacheEntries)}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Authorize implements Authorizer. A cached answer is returned without a
// call. Otherwise the review is POSTed: status.allowed gives Allow,
// status.denied Deny (both set is Deny with an error), neither
// NoOpinion, with status.reason as the reason; the answer is cached for
// AllowTTL (Allow) or DenyTTL (the others). A failed call — network,
// timeout, non-2xx status, unreadable body — is NoOpinion with an error
// wrapping ErrWebhook, and is not cached.
func (w *WebhookAuthorizer) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	spec := reviewSpec(a)
	key, err := json.Marshal(spec)
	if err != nil {
		return DecisionNoOpinion, "", fmt.Errorf("%w: %w", ErrWebhook, err)
	}
	now := w.cfg.Now()
	if e, ok := w.cache.get(string(key), now); ok {
		return e.decision, e.reason, nil
	}
	status, err := w.review(ctx, spec)
	if err != nil {
		return DecisionNoOpinion, "", err
	}
	var d Decision
	switch {
	case status.Allowed && status.Denied:
		return DecisionDeny, status.Reason, fmt.Errorf("%w: review returned both allowed and denied", ErrWebhook)
	case status.Allowed:
		d = DecisionAllow
	case status.Denied:
		d = DecisionDeny
	default:
		d = DecisionNoOpinion
	}
	ttl := w.cfg.DenyTTL
	if d == DecisionAllow {
		ttl = w.cfg.AllowTTL
	}
	w.cache.put(string(key), cacheEntry{decision: d, reason: status.Reason, expires: now.Add(ttl)})
	return d, status.Reason, nil
}

// reviewSpec turns attributes into the SubjectAccessReview spec.
func reviewSpec(a Attributes) authorization.SubjectAccessReviewSpec {
	var spec authorization.SubjectAccessReviewSpec
	if a.User != nil {
		spec.User, spec.UID, spec.Groups = a.User.Name, a.User.UID, a.User.Groups
		if len(a.User.Extra) > 0 {
			spec.Extra = make(map[string]authorization.ExtraValue, len(a.User.Extra))
			for k, v := range a.User.Extra {
				spec.Extra[k] = v
			}
		}
	}
	if !a.ResourceRequest {
		spec.NonResourceAttributes = &authorization.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
		return spec
	}
	spec.ResourceAttributes = &authorization.ResourceAttributes{
		Namespace: a.Namespace, Verb: a.Verb, Group: a.APIGroup, Version: a.APIVersion,
		Resource: a.Resource, Subresource: a.Subresource, Name: a.Name,
		FieldSelector: rawSelector(a.FieldSelector), LabelSelector: rawSelector(a.LabelSelector),
	}
	return spec
}

// rawSelector encodes a selector as the {"rawSelector": ...} attribute
// Kubernetes sends, or nothing when empty.
func rawSelector(sel string) meta.RawJSON {
	if sel == "" {
		return nil
	}
	b, _ := json.Marshal(map[string]string{"rawSelector": sel})
	return b
}

// review POSTs one SubjectAccessReview and returns its status.
func (w *WebhookAuthorizer) review(ctx context.Context, spec authorization.SubjectAccessReviewSpec) (*authorization.SubjectAccessReviewStatus, error) {
	sar := authorization.SubjectAccessReview{Spec: spec}
	sar.APIVersion = authorization.GroupName + "/" + authorization.Version
	sar.Kind = "SubjectAccessReview"
	body, err := json.Marshal(&sar)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWebhook, err)
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWebhook, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := w.cfg.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWebhook, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReviewResponse+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading response: %w", ErrWebhook, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%w: %s answered %s", ErrWebhook, w.cfg.URL, resp.Status)
	}
	if len(data) > maxReviewResponse {
		return nil, fmt.Errorf("%w: response larger than %d bytes", ErrWebhook, maxReviewResponse)
	}
	var out authorization.SubjectAccessReview
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%w: decoding response: %w", ErrWebhook, err)
	}
	if (out.Kind != "" && out.Kind != sar.Kind) || (out.APIVersion != "" && out.APIVersion != sar.APIVersion) {
		return nil, fmt.Errorf("%w: response is %s %s, want %s %s", ErrWebhook, out.APIVersion, out.Kind, sar.APIVersion, sar.Kind)
	}
	return &out.Status, nil
}

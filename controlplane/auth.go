package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authn/bootstraptoken"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/client"
)

// The authorization modes, as kube-apiserver's --authorization-mode names
// them.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeABAC        = "ABAC"
	ModeWebhook     = "Webhook"
	ModeRBAC        = "RBAC"
	ModeNode        = "Node"
	// DefaultAuthorizationMode is used when AuthConfig.AuthorizationMode is
	// empty.
	DefaultAuthorizationMode = ModeNode + "," + ModeRBAC
)

var knownModes = []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeABAC, ModeWebhook, ModeRBAC, ModeNode}

// AuthConfig chooses how the API server authenticates and authorizes
// requests, field for field like kube-apiserver's flags. The zero value
// means client certificates signed by the cluster CA (always on), no
// anonymous requests, and the Node and RBAC authorizers after the
// system:masters check. It is read once, at Start; a file it names is
// read then, and a missing or malformed one fails Start.
type AuthConfig struct {
	// TokenFile (--token-auth-file) enables static bearer tokens from a
	// CSV file: token,user,uid,"group1,group2".
	TokenFile string
	// BasicAuthFile (--basic-auth-file) enables HTTP basic credentials
	// from a CSV file: password,user,uid,"group1,group2".
	BasicAuthFile string
	// OIDC (--oidc-*) enables OpenID Connect ID tokens when
	// OIDC.IssuerURL is set (an https URL; ClientID is then required).
	OIDC authn.Config
	// AnonymousAuth (--anonymous-auth) lets requests without credentials
	// run as system:anonymous in group system:unauthenticated.
	// kube-apiserver defaults it to true; orkit's zero value is false.
	AnonymousAuth bool
	// BootstrapTokenAuth (--enable-bootstrap-token-auth) accepts
	// bootstrap tokens, kept as bootstrap.kubernetes.io/token Secrets in
	// kube-system, as users system:bootstrap:<id> in system:bootstrappers
	// (nodes joining; see authn/bootstraptoken).
	BootstrapTokenAuth bool

	// AuthorizationMode (--authorization-mode) is the comma-separated,
	// ordered list of authorizers asked after system:masters: any of
	// AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node, each at most
	// once. Empty means DefaultAuthorizationMode ("Node,RBAC").
	AuthorizationMode string
	// AuthorizationPolicyFile (--authorization-policy-file) is the ABAC
	// policy (JSON lines); required with mode ABAC, refused without it.
	AuthorizationPolicyFile string
	// AuthorizationWebhookConfigFile (--authorization-webhook-config-file)
	// is a kubeconfig naming the SubjectAccessReview service (the current
	// context's cluster server URL and CA) and the API server's
	// credentials for it (client certificate or token); required with
	// mode Webhook, refused without it.
	AuthorizationWebhookConfigFile string
	// AuthorizationWebhookCacheAuthorizedTTL and ...UnauthorizedTTL
	// (--authorization-webhook-cache-(un)authorized-ttl) are how long the
	// webhook's answers are cached; 0 means 5m and 30s.
	AuthorizationWebhookCacheAuthorizedTTL   time.Duration
	AuthorizationWebhookCacheUnauthorizedTTL time.Duration
}

// ParseAuthorizationModes splits and checks an --authorization-mode value:
// every mode known, none twice, at least one. Empty means
// DefaultAuthorizationMode. Errors wrap ErrInvalidConfig.
func ParseAuthorizationModes(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		s = DefaultAuthorizationMode
	}
	var modes []string
	for m := range strings.SplitSeq(s, ",") {
		m = strings.TrimSpace(m)
		if !slices.Contains(knownModes, m) {
			return nil, fmt.Errorf("%w: authorization-mode %q is not a valid mode (valid: %s)", ErrInvalidConfig, m, strings.Join(knownModes, ", "))
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("%w: authorization-mode %q has mode specified more than once", ErrInvalidConfig, s)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// authenticator builds the union of the configured authenticators:
// client certificates first, then basic auth, the token file and OIDC.
func (cfg *Config) authenticator(clientCAs *x509.CertPool, secrets bootstraptoken.SecretGetter) (*authn.UnionAuthenticator, error) {
	auths := []authn.Authenticator{authn.X509(clientCAs)}
	if cfg.Auth.BootstrapTokenAuth {
		auths = append(auths, bootstraptoken.NewAuthenticator(secrets))
	}
	if f := cfg.Auth.BasicAuthFile; f != "" {
		ba, err := authn.BasicAuthFile(f)
		if err != nil {
			return nil, fmt.Errorf("%w: basic-auth-file: %w", ErrInvalidConfig, err)
		}
		auths = append(auths, ba)
	}
	if cfg.Auth.TokenFile != "" {
		ta, err := authn.TokenFile(cfg.Auth.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("%w: token-auth-file: %w", ErrInvalidConfig, err)
		}
		auths = append(auths, ta)
	}
	if o := cfg.Auth.OIDC; o.IssuerURL != "" || o.ClientID != "" {
		oa, err := authn.OIDC(o)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		auths = append(auths, oa)
	}
	return authn.Union(cfg.Auth.AnonymousAuth, auths...), nil
}

// authorizer builds the chain: system:masters, then the modes in order
// (the server's apiserver.AuthorizerFactory). Files are read now, so a
// missing or malformed one fails start-up.
func (cfg *Config) authorizer(_ context.Context, srv *apiserver.Server) (authz.Authorizer, error) {
	a := cfg.Auth
	modes, err := ParseAuthorizationModes(a.AuthorizationMode)
	if err != nil {
		return nil, err
	}
	switch {
	case a.AuthorizationPolicyFile != "" && !slices.Contains(modes, ModeABAC):
		return nil, fmt.Errorf("%w: cannot specify --authorization-policy-file without mode ABAC", ErrInvalidConfig)
	case a.AuthorizationWebhookConfigFile != "" && !slices.Contains(modes, ModeWebhook):
		return nil, fmt.Errorf("%w: cannot specify --authorization-webhook-config-file without mode Webhook", ErrInvalidConfig)
	}
	chain := []authz.Authorizer{authz.Masters()}
	for _, m := range modes {
		az, err := cfg.modeAuthorizer(m, srv)
		if err != nil {
			return nil, err
		}
		chain = append(chain, az)
	}
	return authz.Chain(chain...), nil
}

// modeAuthorizer builds the authorizer of one mode.
func (cfg *Config) modeAuthorizer(mode string, srv *apiserver.Server) (authz.Authorizer, error) {
	a := cfg.Auth
	switch mode {
	case ModeAlwaysAllow:
		return authz.AlwaysAllow(), nil
	case ModeAlwaysDeny:
		return authz.AlwaysDeny(), nil
	case ModeNode:
		return authz.Node(srv.NodeGraph()), nil
	case ModeRBAC:
		return authz.RBAC(srv.RBACSource()), nil
	case ModeABAC:
		if a.AuthorizationPolicyFile == "" {
			return nil, fmt.Errorf("%w: authorization-mode ABAC's authorization policy file not passed", ErrInvalidConfig)
		}
		z, err := authz.ABAC(a.AuthorizationPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: authorization-policy-file: %w", ErrInvalidConfig, err)
		}
		return z, nil
	case ModeWebhook:
		if a.AuthorizationWebhookConfigFile == "" {
			return nil, fmt.Errorf("%w: authorization-mode Webhook's authorization config file not passed", ErrInvalidConfig)
		}
		z, err := webhookAuthorizer(a.AuthorizationWebhookConfigFile,
			a.AuthorizationWebhookCacheAuthorizedTTL, a.AuthorizationWebhookCacheUnauthorizedTTL)
		if err != nil {
			return nil, fmt.Errorf("%w: authorization-webhook-config-file: %w", ErrInvalidConfig, err)
		}
		return z, nil
	}
	return nil, fmt.Errorf("%w: authorization-mode %q is not a valid mode", ErrInvalidConfig, mode)
}

// webhookAuthorizer reads a webhook kubeconfig, as kube-apiserver does:
// the current context's cluster is the service (server URL, CA, TLS server
// name), its user the API server's credentials (client certificate or
// bearer token).
func webhookAuthorizer(path string, allowTTL, denyTTL time.Duration) (*authz.WebhookAuthorizer, error) {
	kc, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		return nil, err
	}
	if kc.Username != "" || kc.BearerTokenFile != "" {
		return nil, fmt.Errorf("%s: only client certificates and tokens are supported for the webhook", path)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: kc.ServerName, InsecureSkipVerify: kc.Insecure} //nolint:gosec // only when the kubeconfig asks
	if len(kc.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(kc.CAData) {
			return nil, fmt.Errorf("%s: certificate authority holds no PEM certificate", path)
		}
		tc.RootCAs = pool
	}
	if len(kc.CertData) > 0 {
		cert, err := tls.X509KeyPair(kc.CertData, kc.KeyData)
		if err != nil {
			return nil, fmt.Errorf("%s: client certificate: %w", path, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	var rt http.RoundTripper = tr
	if kc.BearerToken != "" {
		rt = bearerTransport{token: kc.BearerToken, base: tr}
	}
	return authz.Webhook(authz.Config{
		URL: kc.Host, TLS: tc, AllowTTL: allowTTL, DenyTTL: denyTTL,
		Client: &http.Client{Transport: rt, Timeout: authz.DefaultTimeout},
	})
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

// RoundTrip implements http.RoundTripper on a copy of req.
func (t bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

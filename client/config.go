package client

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Defaults applied by New to a Config's zero values.
const (
	// DefaultQPS is the steady request rate allowed when Config.QPS is 0.
	DefaultQPS = 50
	// DefaultBurst is the token bucket size when Config.Burst is 0.
	DefaultBurst = 100
	// DefaultUserAgent is sent when Config.UserAgent is empty.
	DefaultUserAgent = "orkit-client/v1"
	// maxKubeconfigBytes bounds the kubeconfig files read: a real one with
	// embedded certificates is a few kilobytes.
	maxKubeconfigBytes = 4 << 20
)

// Config is how to reach and authenticate to one API server. It is a plain
// value: build one by hand or resolve it from a kubeconfig with
// ConfigFromKubeconfig. New copies what it needs, so a Config may be
// reused or changed after New returns without affecting the client.
type Config struct {
	// Host is the server's base URL ("https://127.0.0.1:6443"); a path in
	// it is a prefix for every request. Required.
	Host string
	// CAData is the PEM bundle the server's certificate is verified
	// against; empty means the system roots.
	CAData []byte
	// Insecure skips verification of the server's certificate. It may not
	// be combined with CAData.
	Insecure bool
	// ServerName overrides the name the server's certificate is checked
	// for (tls-server-name).
	ServerName string
	// CertData and KeyData are the PEM client certificate and key; both or
	// neither.
	CertData, KeyData []byte
	// GetClientCertificate, when set, gives the client certificate at
	// every TLS handshake instead of CertData and KeyData: a certificate
	// that is rotated while the client runs (a kubelet's). Connections
	// already open keep the certificate they were made with.
	GetClientCertificate func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
	// BearerToken is a static bearer token.
	BearerToken string
	// BearerTokenFile is a file holding a bearer token. It is re-read when
	// it changes (and at least every minute); the last token read
	// successfully takes precedence over BearerToken.
	BearerTokenFile string
	// Username and Password are HTTP basic credentials. They may not be
	// combined with a bearer token.
	Username, Password string
	// QPS and Burst size the client-side token bucket: QPS requests a
	// second on average, Burst at once. Zero means DefaultQPS and
	// DefaultBurst; a negative QPS disables rate limiting.
	QPS   float32
	Burst int
	// Timeout bounds each attempt of a non-streaming request; zero means
	// none beyond the caller's context. Watches and followed logs are not
	// bounded by it.
	Timeout time.Duration
	// UserAgent is sent with every request; empty means DefaultUserAgent.
	UserAgent string
	// Namespace is the default namespace of the kubeconfig context the
	// Config came from ("" when it named none). The client does not apply
	// it by itself; callers pass it where a namespace is wanted.
	Namespace string
}

// ConfigFromKubeconfig loads the kubeconfig at path and resolves context
// (the current-context when empty) into a Config. An empty path means the
// first file in $KUBECONFIG, else ~/.kube/config. Certificate, key and
// token files named in the kubeconfig are relative to its directory;
// certificates and keys are read now, the token file at each request.
// Errors wrap ErrInvalidKubeconfig, or the os error when a file is missing.
func ConfigFromKubeconfig(path, context string) (*Config, error) {
	if path == "" {
		path = defaultKubeconfigPath()
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	if fi.Size() > maxKubeconfigBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d allowed", ErrInvalidKubeconfig, path, fi.Size(), maxKubeconfigBytes)
	}
	kc, err := LoadKubeconfig(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKubeconfig, err)
	}
	return kc.ClientConfig(context, filepath.Dir(path))
}

func defaultKubeconfigPath() string {
	if env := os.Getenv("KUBECONFIG"); env != "" {
		for _, p := range filepath.SplitList(env) {
			if p != "" {
				return p
			}
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".kube", "config")
	}
	return filepath.Join(home, ".kube", "config")
}

// ClientConfig resolves context (the current-context when empty) into a
// Config. Relative file names are taken relative to dir. The kubeconfig is
// not modified. Errors wrap ErrInvalidKubeconfig, or the os error of a file
// that cannot be read.
func (k *Kubeconfig) ClientConfig(context, dir string) (*Config, error) {
	if context == "" {
		context = k.CurrentContext
	}
	if context == "" {
		return nil, fmt.Errorf("%w: no context given and current-context is not set", ErrInvalidKubeconfig)
	}
	kctx, ok := findContext(k.Contexts, context)
	if !ok {
		return nil, fmt.Errorf("%w: context %q not found", ErrInvalidKubeconfig, context)
	}
	cluster, ok := findCluster(k.Clusters, kctx.Cluster)
	if !ok {
		return nil, fmt.Errorf("%w: context %q names cluster %q, which is not defined", ErrInvalidKubeconfig, context, kctx.Cluster)
	}
	cfg := &Config{Namespace: kctx.Namespace}
	if err := applyCluster(cfg, kctx.Cluster, cluster, dir); err != nil {
		return nil, err
	}
	if kctx.User == "" {
		return cfg, nil
	}
	user, ok := findUser(k.Users, kctx.User)
	if !ok {
		return nil, fmt.Errorf("%w: context %q names user %q, which is not defined", ErrInvalidKubeconfig, context, kctx.User)
	}
	if err := applyUser(cfg, kctx.User, user, dir); err != nil {
		return nil, err
	}
	return cfg, nil
}

func findContext(list []NamedContext, name string) (Context, bool) {
	for _, c := range list {
		if c.Name == name {
			return c.Context, true
		}
	}
	return Context{}, false
}

func findCluster(list []NamedCluster, name string) (Cluster, bool) {
	for _, c := range list {
		if c.Name == name {
			return c.Cluster, true
		}
	}
	return Cluster{}, false
}

func findUser(list []NamedUser, name string) (AuthInfo, bool) {
	for _, u := range list {
		if u.Name == name {
			return u.User, true
		}
	}
	return AuthInfo{}, false
}

func applyCluster(cfg *Config, name string, c Cluster, dir string) error {
	if c.Server == "" {
		return fmt.Errorf("%w: cluster %q has no server", ErrInvalidKubeconfig, name)
	}
	u, err := url.Parse(c.Server)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%w: cluster %q: server %q is not an http(s) URL", ErrInvalidKubeconfig, name, c.Server)
	}
	ca, err := dataOrFile(c.CertificateAuthorityData, c.CertificateAuthority, dir, "cluster", name, "certificate-authority")
	if err != nil {
		return err
	}
	if c.InsecureSkipTLSVerify && len(ca) > 0 {
		return fmt.Errorf("%w: cluster %q sets both insecure-skip-tls-verify and a certificate authority", ErrInvalidKubeconfig, name)
	}
	cfg.Host, cfg.CAData, cfg.Insecure, cfg.ServerName = c.Server, ca, c.InsecureSkipTLSVerify, c.TLSServerName
	return nil
}

func applyUser(cfg *Config, name string, u AuthInfo, dir string) error {
	cert, err := dataOrFile(u.ClientCertificateData, u.ClientCertificate, dir, "user", name, "client-certificate")
	if err != nil {
		return err
	}
	key, err := dataOrFile(u.ClientKeyData, u.ClientKey, dir, "user", name, "client-key")
	if err != nil {
		return err
	}
	if (len(cert) == 0) != (len(key) == 0) {
		return fmt.Errorf("%w: user %q has a client certificate without its key, or a key without its certificate", ErrInvalidKubeconfig, name)
	}
	cfg.CertData, cfg.KeyData = cert, key
	cfg.BearerToken, cfg.Username, cfg.Password = u.Token, u.Username, u.Password
	if u.TokenFile != "" {
		cfg.BearerTokenFile = resolvePath(u.TokenFile, dir)
	}
	var methods []string
	if u.Token != "" || u.TokenFile != "" {
		methods = append(methods, "token")
	}
	if u.Username != "" || u.Password != "" {
		methods = append(methods, "basicAuth")
	}
	if u.AuthProvider != nil {
		methods = append(methods, "authProvider")
		tok, err := oidcToken(name, u.AuthProvider)
		if err != nil {
			return err
		}
		cfg.BearerToken = tok
	}
	if len(methods) > 1 {
		return fmt.Errorf("%w: user %q: more than one authentication method found (%s); only one is allowed",
			ErrInvalidKubeconfig, name, strings.Join(methods, ", "))
	}
	return nil
}

// oidcToken returns the id-token of an "oidc" auth-provider. Refreshing
// an expired token is not supported: that needs the identity provider,
// which the client does not talk to.
func oidcToken(user string, p *AuthProvider) (string, error) {
	if p.Name != "oidc" {
		return "", fmt.Errorf("%w: user %q: auth-provider %q is not supported (only oidc)", ErrInvalidKubeconfig, user, p.Name)
	}
	tok := p.Config["id-token"]
	if tok == "" {
		return "", fmt.Errorf("%w: user %q: the oidc auth-provider has no id-token", ErrInvalidKubeconfig, user)
	}
	return tok, nil
}

// dataOrFile returns data, or the contents of file (relative to dir); both
// set is a contradiction.
func dataOrFile(data []byte, file, dir, what, name, field string) ([]byte, error) {
	switch {
	case len(data) > 0 && file != "":
		return nil, fmt.Errorf("%w: %s %q sets both %s and %s-data", ErrInvalidKubeconfig, what, name, field, field)
	case len(data) > 0:
		return data, nil
	case file == "":
		return nil, nil
	}
	p := resolvePath(file, dir)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%s %q: read %s: %w", what, name, field, err)
	}
	if fi.Size() > maxKubeconfigBytes {
		return nil, fmt.Errorf("%w: %s %q: %s %s is %d bytes, more than the %d allowed", ErrInvalidKubeconfig, what, name, field, p, fi.Size(), maxKubeconfigBytes)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s %q: read %s: %w", what, name, field, err)
	}
	return b, nil
}

func resolvePath(p, dir string) string {
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

package controlplane

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/pki"
	"github.com/orkit/orkit/serving"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

// DefaultListen is the API server address when Config.Listen is empty.
const DefaultListen = "127.0.0.1:6443"

// readyTimeout bounds how long Start waits for the watch caches to sync.
const readyTimeout = 30 * time.Second

// Config is everything a control plane needs, given up front. Start reads
// it once. Every field but DataDir has a documented zero value, so
// Config{DataDir: dir} is a working control plane: bbolt in dir, a CA
// made on first start, client certificates, the Node and RBAC
// authorizers, DefaultAdmission, the built-in kinds.
type Config struct {
	// DataDir holds the control plane's state: pki/ (the CA, unless
	// PKI.CA is given), sa.key (the service-account signing key, unless
	// ServiceAccounts.SigningKeyFile is given), store.db (the default
	// store) and admin.kubeconfig.
	// Created (mode 0700) if missing. Required.
	DataDir string
	// Listen is the API server address; default DefaultListen
	// (127.0.0.1:6443). Port 0 picks a free port (see ControlPlane.URL).
	Listen string
	// AdvertiseAddress ("IP:port") is where pods reach the API server:
	// the endpoints of the kubernetes Service (default namespace, cluster
	// IP MasterServiceIP, port 443), which the control plane keeps in
	// place. When it differs from Listen the control plane relays it to
	// the API server, binding it even before the address exists on the
	// node (IP_FREEBIND: a pod network bridge created later); port 0 picks
	// a free port. Empty: the Service is created without endpoints, so
	// pods cannot reach the API.
	AdvertiseAddress string
	// PKI chooses the cluster CA and the names of the serving
	// certificate; the zero value keeps the CA in DataDir/pki.
	PKI PKIConfig
	// Auth chooses the authenticators and the authorizers; the zero value
	// is client certificates signed by the CA with the Node and RBAC
	// authorizers. See AuthConfig.
	Auth AuthConfig
	// ServiceAccounts chooses the issuer and keys of service-account
	// tokens; the zero value signs with DataDir/sa.key. See
	// ServiceAccountConfig.
	ServiceAccounts ServiceAccountConfig
	// Admission builds the admission chain; nil means DefaultAdmission.
	// Start from DefaultAdmission to add plugins and choose their order:
	//
	//	Admission: func(ctx context.Context, srv *apiserver.Server) (*admission.Chain, error) {
	//		c := controlplane.DefaultAdmission(srv)
	//		c.Validators = append(c.Validators, myPlugin)
	//		return c, nil
	//	}
	//
	// It runs once, before the server serves, with a context that ends
	// when the control plane stops; an error fails Start.
	Admission apiserver.AdmissionFactory
	// Resources are user-defined kinds served besides the built-ins (a
	// Resource of a built-in kind replaces its default serving). More may
	// be added while running with Server.Register.
	Resources []apiserver.Resource
	// Store opens the store the objects are kept in; nil means bbolt in
	// DataDir/store.db logging to Logger (BboltStore with
	// bbolt.Config{Logger: Logger}). Use ExistingStore for a store the
	// caller opened and keeps owning.
	Store StoreFactory
	// WatchHistory is how many events per resource the watch caches keep
	// for resuming watches (older resourceVersions get 410); default 10,000.
	WatchHistory int
	// CompactionInterval is how often the API server compacts the store,
	// each time to the revision seen one interval before (see
	// apiserver.Config.CompactionInterval): watches, exact lists and
	// continue tokens older than that get 410 Expired, and the bbolt file
	// stops growing under steady churn. Zero means 5 minutes, as
	// kube-apiserver; negative turns compaction off.
	CompactionInterval time.Duration
	// Serving are the API server listener's protections (read-header and
	// idle timeouts, header limit, connections per unauthenticated client
	// address); the zero value is serving's defaults (10 s, 90 s, 1 MiB,
	// 100).
	Serving serving.Limits
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// PKIConfig chooses the cluster CA and the names of the API server's
// serving certificate. The zero value loads DataDir/pki/ca.crt and ca.key,
// creating them on first start, and serves as localhost, kubernetes,
// kubernetes.default, kubernetes.default.svc(.cluster.local), 127.0.0.1,
// MasterServiceIP and the IPs of Config.Listen and AdvertiseAddress.
type PKIConfig struct {
	// CA signs the serving certificate and every credential the control
	// plane issues (and verifies client certificates); nil means the CA
	// in DataDir/pki, created on first start.
	CA *pki.CA
	// ServingHosts are more DNS names and IP addresses the serving
	// certificate is valid for: the names clients reach the API server by
	// beyond the defaults.
	ServingHosts []string
	// FrontProxyCA signs the API server's proxy client certificate (CN
	// FrontProxyClientCN), which it presents to the servers of aggregated
	// APIs, as kubeadm's front-proxy-ca and --proxy-client-cert-file;
	// aggregated servers trust it through the authentication ConfigMap.
	// Servers of one cluster should share it (as kubeadm copies
	// front-proxy-ca to every control-plane node); the ConfigMap trusts
	// the union anyway. nil means the CA in DataDir/pki/front-proxy
	// (ca.crt, ca.key), created on first start, or, when CA is given
	// (the caller keeps the PKI and nothing is written to DataDir/pki),
	// CA itself.
	FrontProxyCA *pki.CA
}

// ControlPlane is a running store and API server. Its fields are set by
// Start and not changed afterwards; its methods are safe for concurrent
// use. It stops when Start's context ends; Done tells when the store is
// closed.
type ControlPlane struct {
	// Server is the API server, for in-process readers (AdmissionSources
	// for an initializer runner) and dynamic registration (Register).
	Server *apiserver.Server
	// CA is the cluster CA: it signed the serving certificate and signs
	// the credentials the control plane issues.
	CA *pki.CA
	// FrontProxyCA signed the proxy client certificate the API server
	// presents to aggregated API servers (see PKIConfig.FrontProxyCA).
	FrontProxyCA *pki.CA
	// URL is https://<bound address>.
	URL string
	// AdminKubeconfig is the path of the system:masters kubeconfig,
	// DataDir/admin.kubeconfig.
	AdminKubeconfig string
	// Store is the store the objects are kept in (tests compact it to
	// force 410s).
	Store store.Interface

	dataDir string
	done    chan struct{}
}

// Start opens (or creates) the data directory and the store, starts the
// API server and returns once it is ready to serve: its caches synced,
// the bootstrap objects (system namespaces, RBAC policy, system
// PriorityClasses) written and the admin kubeconfig in place. Everything
// stops when ctx is done. Bad configuration fails with an error wrapping
// ErrInvalidConfig; on any error what Start opened is closed again.
func Start(ctx context.Context, cfg Config) (*ControlPlane, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("controlplane: data dir: %w", err)
	}
	ca := cfg.PKI.CA
	if ca == nil {
		var err error
		if ca, err = pki.LoadOrCreateCA(filepath.Join(cfg.DataDir, "pki"), "orkit-ca"); err != nil {
			return nil, fmt.Errorf("controlplane: %w", err)
		}
	}
	fpca := cfg.PKI.FrontProxyCA
	if fpca == nil && cfg.PKI.CA != nil {
		fpca = ca
	} else if fpca == nil {
		var err error
		if fpca, err = pki.LoadOrCreateCA(filepath.Join(cfg.DataDir, "pki", "front-proxy"), "front-proxy-ca"); err != nil {
			return nil, fmt.Errorf("controlplane: front-proxy CA: %w", err)
		}
	}
	st, closeStore, err := cfg.openStore(ctx)
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{CA: ca, FrontProxyCA: fpca, Store: st, dataDir: cfg.DataDir, done: make(chan struct{})}
	if err := cp.startServer(ctx, cfg); err != nil {
		closeStore()
		return nil, err
	}
	go func() {
		<-ctx.Done()
		closeStore()
		close(cp.done)
	}()
	return cp, nil
}

// setDefaults checks cfg and fills the documented defaults.
func (cfg *Config) setDefaults() error {
	if cfg.DataDir == "" {
		return fmt.Errorf("%w: DataDir is required", ErrInvalidConfig)
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		return fmt.Errorf("%w: listen address %q: %w", ErrInvalidConfig, cfg.Listen, err)
	}
	if cfg.AdvertiseAddress != "" {
		if _, err := netip.ParseAddrPort(cfg.AdvertiseAddress); err != nil {
			return fmt.Errorf("%w: advertise address %q: %w", ErrInvalidConfig, cfg.AdvertiseAddress, err)
		}
	}
	if _, err := ParseAuthorizationModes(cfg.Auth.AuthorizationMode); err != nil {
		return err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Admission == nil {
		var opts []admission.ServiceAccountOption
		if cfg.ServiceAccounts.MountTokenVolume {
			opts = append(opts, admission.WithTokenVolume())
		}
		cfg.Admission = func(_ context.Context, srv *apiserver.Server) (*admission.Chain, error) {
			return DefaultAdmission(srv, opts...), nil
		}
	}
	if cfg.Store == nil {
		cfg.Store = BboltStore(&bbolt.Config{Logger: cfg.Logger})
	}
	return nil
}

// Done is closed once the control plane has stopped (Start's context
// ended) and its store is closed, so the data directory may be opened
// again.
func (cp *ControlPlane) Done() <-chan struct{} { return cp.done }

func (cp *ControlPlane) startServer(ctx context.Context, cfg Config) error {
	cert, err := cp.servingCertificate(cfg)
	if err != nil {
		return err
	}
	secrets := &serverSecrets{}
	authenticator, err := cfg.authenticator(cp.CA.Pool(), secrets)
	if err != nil {
		return err
	}
	kubeletClient, err := cp.kubeletClient()
	if err != nil {
		return err
	}
	tokens, err := cfg.tokenIssuer()
	if err != nil {
		return err
	}
	proxyClient, err := cp.proxyClientCert()
	if err != nil {
		return err
	}
	srv, err := apiserver.New(apiserver.Config{
		Listen: cfg.Listen, Store: cp.Store, Scheme: api.NewScheme(), Resources: cfg.Resources,
		TLS: &cert, ClientCA: cp.CA.Pool(), Authenticator: authenticator, ServiceAccountTokens: tokens,
		Authorizer: cfg.authorizer, Admission: cfg.Admission,
		Initializers: true, Bootstrap: true, Kubelet: kubeletClient, ProxyClientCert: proxyClient,
		Logger: cfg.Logger, WatchHistory: cfg.WatchHistory, CompactionInterval: cfg.CompactionInterval,
		Serving: cfg.Serving,
	})
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	secrets.srv = srv // before Start: no request is served earlier
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	cp.Server = srv
	cp.URL = "https://" + srv.Addr().String()
	select {
	case <-srv.Ready():
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(readyTimeout):
		return fmt.Errorf("controlplane: API server caches did not sync in %v", readyTimeout)
	}
	if err := cp.startMasterService(ctx, cfg); err != nil {
		return err
	}
	if err := cp.startAuthTrust(ctx, cfg); err != nil {
		return err
	}
	cp.AdminKubeconfig = filepath.Join(cp.dataDir, "admin.kubeconfig")
	return cp.WriteKubeconfig(cp.AdminKubeconfig, "admin", "system:masters")
}

// servingCertificate issues the API server's certificate for the default
// names, the listen address and cfg.PKI.ServingHosts; the served chain
// is the certificate and the cluster CA's.
func (cp *ControlPlane) servingCertificate(cfg Config) (tls.Certificate, error) {
	host, _, _ := net.SplitHostPort(cfg.Listen)
	names := []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local"}
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.IP(MasterServiceIP.AsSlice())}
	hosts := append([]string{host}, cfg.PKI.ServingHosts...)
	if adv, _, err := net.SplitHostPort(cfg.AdvertiseAddress); err == nil {
		hosts = append(hosts, adv)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			if !ip.IsUnspecified() && !containsIP(ips, ip) {
				ips = append(ips, ip)
			}
		} else if h != "" {
			names = append(names, h)
		}
	}
	kp, err := cp.CA.IssueServing("kube-apiserver", names, ips)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("controlplane: serving certificate: %w", err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return cert, err
	}
	// The chain ends in the CA certificate, so a joining node that pins
	// the CA's public key (kubeadm's --discovery-token-ca-cert-hash) can
	// take the CA from the handshake before it sends its token.
	cert.Certificate = append(cert.Certificate, cp.CA.Cert.Raw)
	return cert, nil
}

func containsIP(ips []net.IP, ip net.IP) bool {
	for _, i := range ips {
		if i.Equal(ip) {
			return true
		}
	}
	return false
}

// DefaultAdmission returns the built-in admission chain for srv, in
// Kubernetes' order (the chain Config.Admission nil means): the mutating phase runs LimitRanger defaults,
// Priority (a pod's priority from its PriorityClass), RuntimeClass (its
// class's overhead, node selector and tolerations), DefaultStorageClass
// (a claim naming no class gets the default StorageClass) and
// DefaultIngressClass (an Ingress naming no class gets the default
// IngressClass); the validating phase
// runs NamespaceLifecycle, NodeRestriction, LimitRanger limits, Priority
// (one default PriorityClass), RuntimeClass (a pod's overhead is its
// class's), ValidatingAdmissionPolicy (CEL), ValidatingAdmissionWebhook
// and ResourceQuota (last, because
// it charges usage when it admits). MutatingAdmissionPolicy (CEL
// mutations) and MutatingAdmissionWebhook end the
// mutating phase, as in Kubernetes' plugin order. SecurityContextDeny and Privileged exist but are
// off, as in Kubernetes' defaults; add them to the chain to use them.
//
// The scheduler still resolves priorityClassName for a pod that reaches
// it without spec.priority (one written past admission); with Priority in
// the chain every pod created through the API has it.
//
// saOpts configure the ServiceAccount plugin (admission.WithTokenVolume
// mounts the API access volume in every pod).
func DefaultAdmission(srv *apiserver.Server, saOpts ...admission.ServiceAccountOption) *admission.Chain {
	src := srv.AdmissionSources()
	lr := admission.NewLimitRanger(src)
	prio := admission.NewPriority(priorityClasses{srv})
	rtc := admission.NewRuntimeClass(runtimeClasses{srv})
	return &admission.Chain{
		Mutators: []admission.Mutator{admission.NewServiceAccount(serviceAccounts{srv}, saOpts...), lr, prio, rtc,
			admission.NewDefaultStorageClass(storageClasses{srv}), admission.NewDefaultIngressClass(ingressClasses{srv}),
			newMutatingAdmissionPolicy(srv), newMutatingWebhook(srv)},
		Validators: []admission.Validator{
			admission.NewNamespaceLifecycle(src, src.LookupNamespace),
			admission.NewNodeRestriction(src),
			lr,
			prio,
			rtc,
			newValidatingAdmissionPolicy(srv),
			newValidatingWebhook(srv),
			admission.NewResourceQuota(src),
		},
	}
}

// WriteKubeconfig writes a kubeconfig (mode 0600) for user in groups,
// with a new client certificate signed by the cluster CA: the
// credentials of a component ("system:kube-scheduler",
// "system:node:<name>" in "system:nodes") or of a person.
func (cp *ControlPlane) WriteKubeconfig(path, user string, groups ...string) error {
	kp, err := cp.CA.IssueClient(user, groups...)
	if err != nil {
		return err
	}
	kc := client.NewKubeconfig(cp.URL, cp.CA.CertPEM, user, client.AuthInfo{ClientCertificateData: kp.CertPEM, ClientKeyData: kp.KeyPEM})
	return kc.Write(path)
}

// WriteTokenKubeconfig writes a kubeconfig that authenticates with token
// (one of AuthConfig.TokenFile's).
func (cp *ControlPlane) WriteTokenKubeconfig(path, user, token string) error {
	return client.NewKubeconfig(cp.URL, cp.CA.CertPEM, user, client.AuthInfo{Token: token}).Write(path)
}

// ClientConfig returns the settings of a client that authenticates as
// user in groups with a new client certificate signed by the cluster CA,
// without writing a file. Rate limits are client's defaults.
func (cp *ControlPlane) ClientConfig(user string, groups ...string) (*client.Config, error) {
	kp, err := cp.CA.IssueClient(user, groups...)
	if err != nil {
		return nil, err
	}
	return &client.Config{Host: cp.URL, CAData: cp.CA.CertPEM, CertData: kp.CertPEM, KeyData: kp.KeyPEM}, nil
}

package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/pki"
	"github.com/orkit/orkit/store/bbolt"
)

// Config says where the control plane keeps its state and how it serves.
type Config struct {
	// DataDir holds store.db, pki/ and the kubeconfigs. Required.
	DataDir string
	// Listen is the API server address; default 127.0.0.1:6443.
	Listen string
	// TokenFile (--token-auth-file), when set, enables static bearer
	// tokens (Kubernetes CSV: token,user,uid,"group1,group2").
	TokenFile string
	// Auth chooses the other authenticators and the authorizers; the zero
	// value is x509 (and TokenFile) with Node and RBAC. See AuthConfig.
	Auth AuthConfig
	// Admission builds the admission chain for the server; nil means
	// DefaultAdmission. Start from DefaultAdmission to add plugins and
	// choose their order.
	Admission func(*apiserver.Server) *admission.Chain
	// Resources are user-defined kinds to serve besides the built-ins
	// (registered before the server starts).
	Resources []apiserver.Resource
	// WatchHistory is how many events per resource the watch caches keep
	// for resuming watches (older resourceVersions get 410); default 10,000.
	WatchHistory int
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// ControlPlane is a running store and API server.
type ControlPlane struct {
	Server *apiserver.Server
	CA     *pki.CA
	// URL is https://<listen address>.
	URL string
	// AdminKubeconfig is the path of the system:masters kubeconfig.
	AdminKubeconfig string
	// Store is the control plane's store (tests compact it to force 410s).
	Store   *bbolt.Store
	dataDir string
}

// Start opens (or creates) the data directory, starts the API server and
// returns once it is ready to serve. Everything stops when ctx is done;
// call Wait to know when the store is closed.
func Start(ctx context.Context, cfg Config) (*ControlPlane, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("controlplane: DataDir is required")
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:6443"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Admission == nil {
		cfg.Admission = DefaultAdmission
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	ca, err := loadOrCreateCA(filepath.Join(cfg.DataDir, "pki"))
	if err != nil {
		return nil, err
	}
	st, err := bbolt.Open(filepath.Join(cfg.DataDir, "store.db"), nil)
	if err != nil {
		return nil, fmt.Errorf("controlplane: open store: %w", err)
	}
	cp := &ControlPlane{CA: ca, dataDir: cfg.DataDir, Store: st}
	if err := cp.startServer(ctx, cfg); err != nil {
		st.Close()
		return nil, err
	}
	return cp, nil
}

func (cp *ControlPlane) startServer(ctx context.Context, cfg Config) error {
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return fmt.Errorf("controlplane: listen address %q: %w", cfg.Listen, err)
	}
	ips := []net.IP{net.ParseIP("127.0.0.1")}
	if ip := net.ParseIP(host); ip != nil && !ip.Equal(ips[0]) {
		ips = append(ips, ip)
	}
	serving, err := cp.CA.IssueServing("kube-apiserver", []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}, ips)
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	if err != nil {
		return err
	}
	sch := api.NewScheme()
	authenticator, err := cfg.authenticator(cp.CA.Pool())
	if err != nil {
		return err
	}
	kubeletClient, err := cp.kubeletClient()
	if err != nil {
		return err
	}
	srv, err := apiserver.New(apiserver.Config{
		Listen: cfg.Listen, Store: cp.Store, Scheme: sch, TLS: &cert, ClientCA: cp.CA.Pool(),
		Authenticator: authenticator, Logger: cfg.Logger,
		WatchHistory: cfg.WatchHistory, Kubelet: kubeletClient,
	})
	if err != nil {
		return err
	}
	for _, r := range cfg.Resources {
		if err := srv.Register(r); err != nil {
			return err
		}
	}
	if err := srv.RegisterScheme(sch); err != nil {
		return err
	}
	authorizer, err := cfg.authorizer(srv)
	if err != nil {
		return err
	}
	srv.SetAdmission(cfg.Admission(srv))
	srv.SetAuthorizer(authorizer)
	if err := srv.EnableInitializers(); err != nil {
		return err
	}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	cp.Server = srv
	cp.URL = "https://" + srv.Addr().String()
	go func() {
		<-ctx.Done()
		cp.Store.Close()
	}()
	select {
	case <-srv.Ready():
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(30 * time.Second):
		return errors.New("controlplane: API server caches did not sync in 30s")
	}
	if err := srv.Bootstrap(ctx); err != nil {
		return err
	}
	cp.AdminKubeconfig = filepath.Join(cp.dataDir, "admin.kubeconfig")
	return cp.WriteKubeconfig(cp.AdminKubeconfig, "admin", "system:masters")
}

// DefaultAdmission returns the built-in admission chain for srv, in
// Kubernetes' order: the mutating phase runs LimitRanger defaults then
// Priority (a pod's priority from its PriorityClass); the validating phase
// runs NamespaceLifecycle, NodeRestriction, LimitRanger limits, Priority
// (one default PriorityClass) and ResourceQuota (last, because it charges
// usage when it admits). SecurityContextDeny and Privileged exist but are
// off, as in Kubernetes' defaults; add them to the chain to use them.
//
// The scheduler still resolves priorityClassName for a pod that reaches
// it without spec.priority (one written past admission); with Priority in
// the chain every pod created through the API has it.
func DefaultAdmission(srv *apiserver.Server) *admission.Chain {
	src := srv.AdmissionSources()
	lr := admission.NewLimitRanger(src)
	prio := admission.NewPriority(priorityClasses{srv})
	return &admission.Chain{
		Mutators: []admission.Mutator{admission.NewServiceAccount(serviceAccounts{srv}), lr, prio},
		Validators: []admission.Validator{
			admission.NewNamespaceLifecycle(src, src.LookupNamespace),
			admission.NewNodeRestriction(),
			lr,
			prio,
			admission.NewResourceQuota(src),
		},
	}
}

// WriteKubeconfig writes a kubeconfig for user in groups, with a client
// certificate signed by the cluster CA.
func (cp *ControlPlane) WriteKubeconfig(path, user string, groups ...string) error {
	kp, err := cp.CA.IssueClient(user, groups...)
	if err != nil {
		return err
	}
	kc := client.NewKubeconfig(cp.URL, cp.CA.CertPEM, user, client.AuthInfo{ClientCertificateData: kp.CertPEM, ClientKeyData: kp.KeyPEM})
	return kc.Write(path)
}

// WriteTokenKubeconfig writes a kubeconfig that authenticates with token.
func (cp *ControlPlane) WriteTokenKubeconfig(path, user, token string) error {
	return client.NewKubeconfig(cp.URL, cp.CA.CertPEM, user, client.AuthInfo{Token: token}).Write(path)
}

// loadOrCreateCA reads dir/ca.crt and dir/ca.key, creating them the first time.
func loadOrCreateCA(dir string) (*pki.CA, error) {
	crt, key := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if _, err := os.Stat(crt); err == nil {
		return pki.LoadCA(crt, key)
	}
	ca, err := pki.NewCA("orkit-ca")
	if err != nil {
		return nil, err
	}
	return ca, ca.Save(dir)
}

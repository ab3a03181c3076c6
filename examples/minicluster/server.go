package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/authn/bootstraptoken"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/nodeipam"
	"github.com/orkit/orkit/controller/nodelifecycle"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/pki"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/etcd"
)

// Roles of a minicluster process (--role).
const (
	// roleAll is the default: everything in one process (store, API
	// server, controllers, scheduler, nodes).
	roleAll = ""
	// roleServer runs the API server on a shared store (etcd) with the
	// controller manager and the scheduler, each leader-elected on a
	// Lease, so that several server processes make one control plane.
	roleServer = "server"
)

// Leases the leader-elected components of a server hold, those of
// kube-controller-manager and kube-scheduler.
const (
	leaseNamespace      = "kube-system"
	controllerLeaseName = "kube-controller-manager"
	schedulerLeaseName  = "kube-scheduler"
)

// serverOptions are the settings of the distributed roles.
type serverOptions struct {
	// Role is roleAll or roleServer.
	Role string
	// EtcdServers are etcd client URLs; empty means bbolt in the data dir.
	EtcdServers []string
	// EtcdCAFile, EtcdCertFile, EtcdKeyFile secure https:// etcd URLs
	// (kube-apiserver's --etcd-cafile, --etcd-certfile, --etcd-keyfile).
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	// EtcdPrefix is put before every key in etcd; "" keeps orkit's keys
	// (they start with /registry/).
	EtcdPrefix string
	// CACertFile and CAKeyFile name the cluster CA; empty means
	// DATA/pki/ca.crt and ca.key (created on first start). Servers of one
	// cluster share it: copy the first server's DATA/pki, or name the
	// same files here.
	CACertFile, CAKeyFile string
	// FrontProxyCACertFile and FrontProxyCAKeyFile name the front-proxy CA
	// (kubeadm's front-proxy-ca), which signs the proxy client certificate
	// the API server presents to aggregated API servers; empty means
	// DATA/pki/front-proxy/ca.crt and ca.key (created on first start), or
	// the cluster CA when --ca-cert names one. Servers of one cluster
	// share it like the cluster CA.
	FrontProxyCACertFile, FrontProxyCAKeyFile string
	// Identity names this process in leader election; default
	// <hostname>_<pid>.
	Identity string
	// TLSSANs are more names and addresses of the serving certificate
	// (k3s's --tls-san): those clients reach the server by, such as a
	// load balancer's.
	TLSSANs []string
	// ClusterCIDR is the pod network node IPAM gives nodes their pod CIDRs
	// from (kube-controller-manager's --cluster-cidr); the zero Prefix
	// means 10.244.0.0/16. Real nodes and agents take 10.244.<i>.0/24
	// themselves, so with real nodes it must contain 10.244.0.0/17.
	ClusterCIDR netip.Prefix
	// NodeCIDRMaskSize is the prefix length of each node's pod CIDR
	// (--node-cidr-mask-size); zero means 24. A /16 cluster CIDR has room
	// for 128 nodes of /24 beside the real nodes' half: thousands of
	// simulated nodes need a larger cluster CIDR or a longer mask.
	NodeCIDRMaskSize int
	// NodeMonitorGracePeriod is how long a node may miss heartbeats before
	// its Ready condition turns Unknown; zero means nodelifecycle's 40 s.
	NodeMonitorGracePeriod time.Duration
	// DefaultTolerationSeconds is how long pods without their own
	// toleration stay on a not-ready or unreachable node; zero means 300.
	DefaultTolerationSeconds int
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election
	// (kube's --leader-elect-* flags); zero means controller's defaults
	// (15 s, 10 s, 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// addServerFlags registers the distributed roles' flags on fs.
func (o *options) addServerFlags(fs *flag.FlagSet) {
	s := &o.Server
	fs.StringVar(&s.Role, "role", roleAll, `"server": API server, controller manager and scheduler (leader-elected) on a shared store; "agent": a kubelet and service proxy joining a server; "" (default): the whole cluster in one process`)
	fs.Func("tls-san", "more names or IP addresses of the API server's serving certificate, comma-separated (a balancer's address); repeatable", func(v string) error {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				s.TLSSANs = append(s.TLSSANs, h)
			}
		}
		return nil
	})
	fs.Func("etcd-servers", "comma-separated etcd client URLs to store in (default: bbolt in --data-dir)", func(v string) error {
		s.EtcdServers = nil
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				s.EtcdServers = append(s.EtcdServers, u)
			}
		}
		if len(s.EtcdServers) == 0 {
			return errors.New("no URL")
		}
		return nil
	})
	fs.StringVar(&s.EtcdCAFile, "etcd-cafile", "", "CA of the etcd servers' certificates (https URLs)")
	fs.StringVar(&s.EtcdCertFile, "etcd-certfile", "", "client certificate for etcd")
	fs.StringVar(&s.EtcdKeyFile, "etcd-keyfile", "", "client key for etcd")
	fs.StringVar(&s.EtcdPrefix, "etcd-prefix", "", "prefix of every etcd key (default none: keys start with /registry/)")
	fs.StringVar(&s.CACertFile, "ca-cert", "", "cluster CA certificate shared by the servers (default DATA/pki/ca.crt)")
	fs.StringVar(&s.CAKeyFile, "ca-key", "", "cluster CA key (default DATA/pki/ca.key)")
	fs.StringVar(&s.FrontProxyCACertFile, "front-proxy-ca-cert", "", "front-proxy CA certificate shared by the servers, signing the proxy client certificate for aggregated APIs (default DATA/pki/front-proxy/ca.crt, or --ca-cert's CA)")
	fs.StringVar(&s.FrontProxyCAKeyFile, "front-proxy-ca-key", "", "front-proxy CA key (default DATA/pki/front-proxy/ca.key)")
	fs.Func("cluster-cidr", "pod network node IPAM hands nodes their pod CIDRs from (default 10.244.0.0/16; real nodes take 10.244.<i>.0/24 of it)", func(v string) error {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			return err
		}
		s.ClusterCIDR = p.Masked()
		return nil
	})
	fs.IntVar(&s.NodeCIDRMaskSize, "node-cidr-mask-size", nodeipam.DefaultNodeMaskSize, "prefix length of each node's pod CIDR")
	fs.DurationVar(&s.NodeMonitorGracePeriod, "node-monitor-grace-period", nodelifecycle.DefaultGracePeriod,
		"how long a node may miss heartbeats before it is NotReady (kube-controller-manager's flag)")
	fs.IntVar(&s.DefaultTolerationSeconds, "default-toleration-seconds", int(nodelifecycle.DefaultTolerationSeconds/time.Second),
		"how long pods stay on a not-ready or unreachable node before eviction (kube-apiserver's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds)")
	fs.StringVar(&s.Identity, "identity", "", "this process's identity in leader election (default <hostname>_<pid>)")
	fs.DurationVar(&s.LeaseDuration, "leader-elect-lease-duration", controller.DefaultLeaseDuration, "how long standbys wait before taking a lease that was not renewed")
	fs.DurationVar(&s.RenewDeadline, "leader-elect-renew-deadline", controller.DefaultRenewDeadline, "how long a leader tries to renew before it stops leading")
	fs.DurationVar(&s.RetryPeriod, "leader-elect-retry-period", controller.DefaultRetryPeriod, "wait between attempts to acquire or renew a lease")
}

// check validates the distributed settings against the rest of o.
func (o *options) checkServer() error {
	s := &o.Server
	switch s.Role {
	case roleAll:
	case roleServer:
		if o.Nodes != 0 || o.SimNodes != 0 {
			return errors.New("--role server runs no nodes: use --nodes 0 (and no --sim-nodes)")
		}
	case roleAgent:
		return o.checkAgent()
	default:
		return fmt.Errorf("--role %q: want server, agent or none", s.Role)
	}
	if err := o.checkPodNetwork(); err != nil {
		return err
	}
	if (s.CACertFile == "") != (s.CAKeyFile == "") {
		return errors.New("--ca-cert and --ca-key go together")
	}
	if (s.FrontProxyCACertFile == "") != (s.FrontProxyCAKeyFile == "") {
		return errors.New("--front-proxy-ca-cert and --front-proxy-ca-key go together")
	}
	if s.Identity == "" {
		host, _ := os.Hostname()
		s.Identity = fmt.Sprintf("%s_%d", host, os.Getpid())
	}
	return nil
}

// checkPodNetwork checks --cluster-cidr and --node-cidr-mask-size: an
// IPv4 prefix, a mask that fits in it, and room for the real nodes'
// 10.244.<i>.0/24 when there are real nodes.
func (o *options) checkPodNetwork() error {
	s := &o.Server
	if !s.ClusterCIDR.IsValid() {
		s.ClusterCIDR = clusterCIDR
	}
	if s.NodeCIDRMaskSize == 0 {
		s.NodeCIDRMaskSize = nodeipam.DefaultNodeMaskSize
	}
	if !s.ClusterCIDR.Addr().Is4() {
		return fmt.Errorf("--cluster-cidr %s: want an IPv4 prefix", s.ClusterCIDR)
	}
	if s.NodeCIDRMaskSize <= s.ClusterCIDR.Bits() || s.NodeCIDRMaskSize > 30 {
		return fmt.Errorf("--node-cidr-mask-size %d: want %d to 30 for --cluster-cidr %s", s.NodeCIDRMaskSize, s.ClusterCIDR.Bits()+1, s.ClusterCIDR)
	}
	if o.Nodes > 0 && !holdsRealNodes(s.ClusterCIDR) {
		return fmt.Errorf("--cluster-cidr %s must contain %s: real nodes take 10.244.<i>.0/24 of it", s.ClusterCIDR, realNodeCIDR)
	}
	return nil
}

// holdsRealNodes reports whether cidr contains the real nodes' range.
func holdsRealNodes(cidr netip.Prefix) bool {
	return cidr.Bits() <= realNodeCIDR.Bits() && cidr.Contains(realNodeCIDR.Addr())
}

// leaderElection returns the leader election settings of the lease name.
func (o *options) leaderElection(name string) *controller.LeaderElectionConfig {
	s := o.Server
	return &controller.LeaderElectionConfig{Namespace: leaseNamespace, Name: name, Identity: s.Identity,
		LeaseDuration: s.LeaseDuration, RenewDeadline: s.RenewDeadline, RetryPeriod: s.RetryPeriod, Logger: o.Logger}
}

// controlPlaneConfig returns the control plane's store and PKI settings.
func (o *options) controlPlaneConfig() (controlplane.Config, error) {
	cfg := controlplane.Config{DataDir: o.DataDir, Listen: o.Listen, Logger: o.Logger, Auth: o.Auth, Admission: admissionChain}
	s := o.Server
	cfg.PKI.ServingHosts = s.TLSSANs
	if s.Role == roleServer {
		cfg.Auth.BootstrapTokenAuth = true // agents join with DATA/join-token
	} else if o.Nodes > 0 {
		// Pods reach the API server through the kubernetes Service at the
		// gateway address of node-1's pod bridge (relayed to Listen).
		cfg.AdvertiseAddress = masterAdvertiseAddr
	}
	if s.CACertFile != "" {
		ca, err := pki.LoadCA(s.CACertFile, s.CAKeyFile)
		if err != nil {
			return cfg, err
		}
		cfg.PKI.CA = ca
	}
	if s.FrontProxyCACertFile != "" {
		ca, err := pki.LoadCA(s.FrontProxyCACertFile, s.FrontProxyCAKeyFile)
		if err != nil {
			return cfg, fmt.Errorf("--front-proxy-ca-cert/--front-proxy-ca-key: %w", err)
		}
		cfg.PKI.FrontProxyCA = ca
	} else if s.Role == roleServer && cfg.PKI.CA == nil {
		// Several servers share the cluster CA (DATA/pki, copied to each)
		// but would each make their own front-proxy CA, and then refuse
		// each other's proxied requests (the metrics server behind one
		// server, reached through another): given to the control plane,
		// the cluster CA also signs the proxy client certificate.
		ca, err := pki.LoadOrCreateCA(filepath.Join(o.DataDir, "pki"), "orkit-ca")
		if err != nil {
			return cfg, fmt.Errorf("cluster CA: %w", err)
		}
		cfg.PKI.CA = ca
	}
	if len(s.EtcdServers) > 0 {
		ecfg := etcd.Config{Endpoints: s.EtcdServers, Prefix: s.EtcdPrefix, Logger: o.Logger}
		if s.EtcdCAFile != "" || s.EtcdCertFile != "" {
			t, err := etcdTLS(s.EtcdCAFile, s.EtcdCertFile, s.EtcdKeyFile)
			if err != nil {
				return cfg, err
			}
			ecfg.TLS = t
		}
		cfg.Store = func(ctx context.Context, _ string) (store.Interface, error) {
			return etcd.New(ctx, ecfg)
		}
	}
	return cfg, nil
}

// etcdTLS makes the client TLS settings for etcd from PEM files.
func etcdTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cafile %s: no PEM certificate", caFile)
		}
	}
	if certFile != "" || keyFile != "" {
		kp, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile/--etcd-keyfile: %w", err)
		}
		t.Certificates = []tls.Certificate{kp}
	}
	return t, nil
}

// runElected runs the scheduler s only while this process holds the
// kube-scheduler Lease, as kube-scheduler --leader-elect does. Losing the
// lease ends the process (a scheduler is not restartable; kube-scheduler
// exits too).
func (c *cluster) runElected(ctx context.Context, s *scheduler.Scheduler) error {
	var runErr error
	cfg := c.opts.leaderElection(schedulerLeaseName)
	cfg.Client = c.schedClient
	cfg.OnStartedLeading = func(lctx context.Context) { runErr = s.Run(lctx) }
	el, err := controller.NewLeaderElector(*cfg)
	if err != nil {
		return err
	}
	err = el.Run(ctx)
	return errors.Join(runErr, err)
}

// fail ends the process with err: a component it cannot run without
// stopped (a leader that lost its lease).
func (c *cluster) fail(err error) {
	select {
	case c.failed <- err:
	default:
	}
}

// storeName describes the store for the progress lines.
func (o *options) storeName() string {
	if len(o.Server.EtcdServers) > 0 {
		return "etcd " + strings.Join(o.Server.EtcdServers, ",")
	}
	return "bbolt"
}

// joinTokenTTL is how long the token in DATA/join-token is valid (kubeadm
// makes tokens for 24 h); a server started again after that makes a new one.
const joinTokenTTL = 24 * time.Hour

// ensureJoinToken makes sure DATA/join-token holds a bootstrap token
// whose Secret exists and has not expired, creating both when not, and
// returns the token.
func (c *cluster) ensureJoinToken(ctx context.Context) (bootstraptoken.Token, error) {
	path := filepath.Join(c.opts.DataDir, "join-token")
	secrets := client.For[core.Secret](c.admin, bootstraptoken.Namespace)
	if b, err := os.ReadFile(path); err == nil {
		if tok, err := bootstraptoken.Parse(strings.TrimSpace(string(b))); err == nil {
			s, err := secrets.Get(ctx, bootstraptoken.SecretPrefix+tok.ID)
			if err == nil && !expired(s) {
				return tok, nil
			}
		}
	}
	tok, err := bootstraptoken.Generate()
	if err != nil {
		return tok, err
	}
	if _, err := secrets.Create(ctx, bootstraptoken.NewSecret(tok, joinTokenTTL, "made by minicluster --role server")); err != nil {
		return tok, fmt.Errorf("join token: %w", err)
	}
	return tok, os.WriteFile(path, []byte(tok.String()+"\n"), 0o600)
}

// expired reports a token Secret past its expiration.
func expired(s *core.Secret) bool {
	exp, err := time.Parse(time.RFC3339, string(s.Data[bootstraptoken.KeyExpiration]))
	return err == nil && !time.Now().Before(exp)
}

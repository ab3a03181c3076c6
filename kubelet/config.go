package kubelet

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/serving"
)

// Defaults applied to zero Config fields.
const (
	DefaultLeaseDuration          = 40 * time.Second
	DefaultLeaseRenewInterval     = 10 * time.Second
	DefaultNodeStatusInterval     = 10 * time.Second
	DefaultNodeStatusReportPeriod = 5 * time.Minute
	DefaultResyncInterval         = 30 * time.Second
	DefaultCrashLoopBackOff       = 10 * time.Second
	DefaultMaxBackOff             = 5 * time.Minute
	DefaultImagePullBackOff       = 10 * time.Second
	DefaultClusterDomain          = "cluster.local"
	DefaultMaxPods                = 110
	// DefaultKubeletPort is the port of the kubelet's HTTPS log endpoint.
	DefaultKubeletPort = 10250
	// Version is the kubelet version reported in nodeInfo.
	Version = "v1.32.0-orkit"
)

// Config configures a Kubelet. NodeName, Client and Runtime are required;
// every other zero value is documented. A Config is copied by New; changing
// it afterwards has no effect.
type Config struct {
	// NodeName is the Node's name (and the node identity's suffix).
	NodeName string
	// Client talks to the API server as this node (system:node:<name>).
	Client *client.Client
	// Runtime runs the sandboxes and containers.
	Runtime cri.Runtime
	// Network attaches sandboxes to the pod network; nil gives pods
	// addresses from FakePodCIDR instead (simulated nodes).
	Network cni.Network
	// FakePodCIDR is where pod IPs come from when Network is nil; the zero
	// prefix means 10.250.0.0/16.
	FakePodCIDR netip.Prefix

	// RootDir holds pods/<uid>/{volumes,plugins,containers}; "" means no
	// directories and no volumes are made (simulated nodes).
	RootDir string
	// LogDir holds the containers' CRI log files; "" means RootDir/logs.
	LogDir string
	// CgroupRoot is the cgroup filesystem mount ("/sys/fs/cgroup"); ""
	// disables pod cgroups.
	CgroupRoot string

	// Capacity overrides the host's capacity (cpu, memory, pods,
	// ephemeral-storage); missing entries come from the host.
	Capacity core.ResourceList
	// Reserved is subtracted from Capacity to give Allocatable.
	Reserved core.ResourceList
	// NodeIP is the node's InternalIP; zero means 127.0.0.1.
	NodeIP netip.Addr
	// Labels are added to the Node's well-known labels. Under the
	// NodeRestriction admission plugin a node may not set labels in the
	// node-restriction.kubernetes.io namespace nor kubernetes.io / k8s.io
	// labels outside the kubelet's set (node-role.kubernetes.io/ among
	// them): registration with one fails, as in Kubernetes; the admin sets
	// those.
	Labels map[string]string
	// Taints are set on the Node when it registers.
	Taints []core.Taint
	// PodCIDR is recorded in spec.podCIDR when the node registers.
	PodCIDR string

	// LeaseDuration, LeaseRenewInterval: the node Lease in kube-node-lease.
	LeaseDuration, LeaseRenewInterval time.Duration
	// NodeStatusInterval is how often the node status is computed; it is
	// written when it changed or NodeStatusReportPeriod passed.
	NodeStatusInterval, NodeStatusReportPeriod time.Duration
	// ResyncInterval is the period of each pod worker's resync.
	ResyncInterval time.Duration
	// CrashLoopBackOff is the first restart back-off (doubling up to
	// MaxBackOff); ImagePullBackOff likewise for failed pulls.
	CrashLoopBackOff, ImagePullBackOff, MaxBackOff time.Duration

	// AdmitHandlers decide whether a new pod may run here; nil means
	// DefaultAdmitHandlers (resources fit).
	AdmitHandlers []AdmitHandler

	// ClusterDNS and ClusterDomain feed the pods' resolv.conf.
	ClusterDNS    []netip.Addr
	ClusterDomain string

	// CPUManagerPolicy is "none" (default) or "static"; with static,
	// ReservedCPUs are kept out of the exclusive pool.
	CPUManagerPolicy string
	ReservedCPUs     int

	// SyntheticUsage, on a node without cgroups (CgroupRoot ""), is the
	// usage Summary reports per container (simulated nodes); nil means
	// such a node reports no pod figures.
	SyntheticUsage UsageFunc

	// ServerAddr is the listen address of the HTTPS log, exec, attach,
	// port-forward and /stats/summary endpoints ("" means no server).
	// ServingCert is its certificate, or GetServingCertificate returns the
	// current one at each handshake (a certificate the cluster issues and
	// renews; see kubelet/clientcert); ClientCA verifies callers, and only
	// APIServerClientCN may call.
	ServerAddr            string
	ServingCert           *tls.Certificate
	GetServingCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	ClientCA              *x509.CertPool
	// Serving are the endpoint's protections (read-header and idle
	// timeouts, header limit, connections per unauthenticated client);
	// the zero value is serving's defaults.
	Serving serving.Limits

	// Recorder records the kubelet's Events (Pulled, Created, Started,
	// Killing, Unhealthy, BackOff, ...). Nil means a record.Writer of the
	// kubelet's own over Client (source "kubelet" on NodeName), run and
	// flushed by Run; a Recorder given here is run by its owner, and
	// record.Discard{} turns Events off (SimPool's default).
	Recorder record.Recorder

	// Prober runs httpGet and tcpSocket probes and hooks; nil means the
	// network prober (or an always-succeeding one when Network is nil).
	Prober Prober

	// Services lists the Services whose environment variables containers
	// get (KUBERNETES_SERVICE_HOST/PORT and the Docker-link style
	// variables, see ServiceEnv). nil: the Kubelet watches Services itself
	// (and waits for their first list before it takes pods), unless
	// ExternalPods is set, where containers get no service variables.
	Services ServiceLister
	// ExternalPods means pods are fed through OnAdd/OnUpdate/OnDelete by a
	// shared informer instead of the Kubelet's own.
	ExternalPods bool
	// ExternalHeartbeat means the caller calls Heartbeat periodically
	// instead of the Kubelet's own loop, and hands it its Node through
	// ObserveNode instead of the Kubelet's own node informer.
	ExternalHeartbeat bool

	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// APIServerClientCN is the only client certificate subject allowed on the
// kubelet's HTTPS endpoint: the API server's (apiserver.Config.Kubelet's
// certificate, as kubeadm names it kube-apiserver-kubelet-client).
const APIServerClientCN = "kube-apiserver-kubelet-client"

func (c Config) withDefaults() (Config, error) {
	if c.NodeName == "" || c.Client == nil || c.Runtime == nil {
		return c, fmt.Errorf("%w: NodeName, Client and Runtime are required", ErrInvalidConfig)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.LeaseDuration, DefaultLeaseDuration)
	def(&c.LeaseRenewInterval, DefaultLeaseRenewInterval)
	def(&c.NodeStatusInterval, DefaultNodeStatusInterval)
	def(&c.NodeStatusReportPeriod, DefaultNodeStatusReportPeriod)
	def(&c.ResyncInterval, DefaultResyncInterval)
	def(&c.CrashLoopBackOff, DefaultCrashLoopBackOff)
	def(&c.ImagePullBackOff, DefaultImagePullBackOff)
	def(&c.MaxBackOff, DefaultMaxBackOff)
	if !c.FakePodCIDR.IsValid() {
		c.FakePodCIDR = netip.MustParsePrefix("10.250.0.0/16")
	}
	if c.RootDir != "" && c.LogDir == "" {
		c.LogDir = filepath.Join(c.RootDir, "logs")
	}
	if !c.NodeIP.IsValid() {
		c.NodeIP = netip.MustParseAddr("127.0.0.1")
	}
	if c.ClusterDomain == "" {
		c.ClusterDomain = DefaultClusterDomain
	}
	if c.AdmitHandlers == nil {
		c.AdmitHandlers = DefaultAdmitHandlers()
	}
	switch c.CPUManagerPolicy {
	case "", "none", "static":
	default:
		return c, fmt.Errorf("%w: CPU manager policy %q (want none or static)", ErrInvalidConfig, c.CPUManagerPolicy)
	}
	if c.ServerAddr != "" && ((c.ServingCert == nil) == (c.GetServingCertificate == nil) || c.ClientCA == nil) {
		return c, fmt.Errorf("%w: ServerAddr needs ClientCA and one of ServingCert and GetServingCertificate", ErrInvalidConfig)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.Logger = c.Logger.With("node", c.NodeName)
	return c, nil
}

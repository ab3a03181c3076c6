package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/cri/containerd/daemon"
	"github.com/orkit/orkit/images"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/kubelet/clientcert"
	"github.com/orkit/orkit/scheduler"
)

// options are the minicluster's settings (the command-line flags).
type options struct {
	DataDir  string
	Listen   string
	Nodes    int // real nodes
	SimNodes int // simulated nodes, sim-node-<i>
	// SimNodeTaint taints the simulated nodes orkit.io/simulated=true:NoSchedule,
	// so only pods that tolerate it run there; false (the default) leaves
	// them untainted and ordinary workloads schedule onto them.
	SimNodeTaint bool
	// DenyPrivileged makes the real nodes' runtimes refuse privileged
	// containers (--allow-privileged=false); by default they run them, as
	// kube's kubelet does (admission, such as PodSecurity, decides who may).
	DenyPrivileged bool
	// HPASyncPeriod is how often autoscalers are evaluated; 0 means 15s.
	HPASyncPeriod time.Duration
	// MetricResolution is how often the metrics server scrapes the
	// nodes; 0 means 15s.
	MetricResolution time.Duration
	// ResolvConf names the upstream resolvers of cluster DNS; "" means
	// /etc/resolv.conf.
	ResolvConf string
	// Images are more images built from Go main packages (of the module
	// the minicluster runs in, or its dependencies) and imported into the
	// real nodes beside the bundled ones: an embedder's own programs run
	// as pods with no registry (--image REF=PACKAGE).
	Images []images.Spec
	// RegistryMirrors sends the real nodes' pulls of a registry's images
	// (key, "registry.k8s.io") to a mirror (value, host[:port]; plain HTTP
	// only on loopback) and never to the registry: an air-gapped cluster
	// pulls, pull policy Always included, from a local registry
	// (--registry-mirror REGISTRY=HOST).
	RegistryMirrors map[string]string
	// Auth configures the API server's authentication and authorization
	// (see addAuthFlags).
	Auth controlplane.AuthConfig
	// Server holds the distributed roles' settings (see addServerFlags).
	Server serverOptions
	// Agent holds the agent role's settings (see addAgentFlags).
	Agent  agentOptions
	Logger *slog.Logger
	// Out receives the progress lines; nil means os.Stdout.
	Out io.Writer
}

// cluster is a running minicluster: the control plane, the scheduler,
// the controllers and the nodes, each a component with its own identity,
// started in dependency order and stopped in reverse.
type cluster struct {
	opts  options
	cp    *controlplane.ControlPlane
	admin *client.Client
	start time.Time

	ctx    context.Context // ends when Close is called
	cancel context.CancelFunc

	mu    sync.Mutex
	stops []func() // run in reverse on Close, after the goroutines ended
	wg    sync.WaitGroup
	nodes []*realNode

	containerd *daemon.Daemon
	simPool    *kubelet.SimPool // nil without simulated nodes
	// podInformer and nodeInformer are the controller manager's informers of every pod
	// and Node, which the scheduler and the simulated nodes share: one
	// decoded copy of each in the process instead of three. The manager
	// runs them (a standby's too) for as long as the process runs.
	podInformer  *informer.Informer[*core.Pod]
	nodeInformer *informer.Informer[*core.Node]

	// failed receives the error of a component the process cannot run
	// without (server role: a leader that lost its lease); run ends.
	failed chan error
	// schedClient is the scheduler's client (server role: its elector's).
	schedClient *client.Client
	// serving is an agent's kubelet serving certificate and servingCA
	// the cluster CA its kubelet verifies the API server with.
	serving   *clientcert.Manager
	servingCA *x509.CertPool
}

// step prints one progress line with the time since start.
func (c *cluster) step(format string, args ...any) {
	fmt.Fprintf(c.opts.Out, "[%6.2fs] %s\n", time.Since(c.start).Seconds(), fmt.Sprintf(format, args...))
}

// onStop registers f to run when the cluster stops (last registered, first run).
func (c *cluster) onStop(f func()) {
	c.mu.Lock()
	c.stops = append(c.stops, f)
	c.mu.Unlock()
}

// goRun runs f in a goroutine owned by the cluster.
func (c *cluster) goRun(name string, f func() error) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := f(); err != nil && !errors.Is(err, context.Canceled) {
			c.opts.Logger.Error("component stopped", "component", name, "err", err)
			if c.opts.Server.Role != roleAll {
				c.fail(fmt.Errorf("%s: %w", name, err))
			}
		}
	}()
}

// addAuthFlags registers kube-apiserver's authentication and
// authorization flags on fs, filling o.Auth. The
// components always authenticate with client certificates and need the
// Node and RBAC modes, so a custom --authorization-mode should keep both.
func (o *options) addAuthFlags(fs *flag.FlagSet) {
	a := &o.Auth
	fs.StringVar(&a.TokenFile, "token-auth-file", "", "static bearer tokens, CSV: token,user,uid,\"group1,group2\"")
	fs.StringVar(&a.BasicAuthFile, "basic-auth-file", "", "HTTP basic credentials, CSV: password,user,uid,\"group1,group2\"")
	fs.BoolVar(&a.AnonymousAuth, "anonymous-auth", false, "serve requests without credentials as system:anonymous (kube-apiserver defaults to true)")
	fs.StringVar(&a.OIDC.IssuerURL, "oidc-issuer-url", "", "https URL of the OpenID Connect provider; enables OIDC ID tokens")
	fs.StringVar(&a.OIDC.ClientID, "oidc-client-id", "", "client ID every OIDC token must be issued for (required with --oidc-issuer-url)")
	fs.StringVar(&a.OIDC.UsernameClaim, "oidc-username-claim", "sub", "OIDC claim holding the user name")
	fs.StringVar(&a.OIDC.UsernamePrefix, "oidc-username-prefix", "", "prefix of OIDC user names (default \"<issuer>#\" unless the claim is email; \"-\" for none)")
	fs.StringVar(&a.OIDC.GroupsClaim, "oidc-groups-claim", "", "OIDC claim holding the groups")
	fs.StringVar(&a.OIDC.GroupsPrefix, "oidc-groups-prefix", "", "prefix of OIDC group names")
	fs.StringVar(&a.OIDC.CAFile, "oidc-ca-file", "", "CA of the OIDC provider's serving certificate (default: system roots)")
	fs.StringVar(&a.AuthorizationMode, "authorization-mode", controlplane.DefaultAuthorizationMode,
		"ordered, comma-separated authorizers after system:masters: Node, RBAC, ABAC, Webhook, AlwaysAllow, AlwaysDeny")
	fs.StringVar(&a.AuthorizationPolicyFile, "authorization-policy-file", "", "ABAC policy, JSON lines (with mode ABAC)")
	fs.StringVar(&a.AuthorizationWebhookConfigFile, "authorization-webhook-config-file", "", "kubeconfig of the SubjectAccessReview webhook (with mode Webhook)")
	fs.DurationVar(&a.AuthorizationWebhookCacheAuthorizedTTL, "authorization-webhook-cache-authorized-ttl", 5*time.Minute, "how long webhook allows are cached")
	fs.DurationVar(&a.AuthorizationWebhookCacheUnauthorizedTTL, "authorization-webhook-cache-unauthorized-ttl", 30*time.Second, "how long webhook denials are cached")
}

// startCluster brings the cluster up. Everything stops when ctx ends and
// Close is called; on error what was started is stopped before returning.
func startCluster(ctx context.Context, opts options) (_ *cluster, retErr error) {
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if err := opts.checkServer(); err != nil {
		return nil, err
	}
	c := &cluster{opts: opts, start: time.Now(), failed: make(chan error, 1)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	ctx = c.ctx
	defer func() {
		if retErr != nil {
			c.Close()
		}
	}()
	if opts.Server.Role == roleAgent {
		return c, c.startAgent(ctx)
	}
	if opts.Nodes > 0 {
		if err := checkNodePrerequisites(); err != nil {
			return nil, err
		}
	}
	c.step("starting the store and the API server (data in %s, %s)", opts.DataDir, opts.storeName())
	// The control plane outlives the other components (their last writes,
	// such as releasing the controller manager's lease, reach it): its
	// context ends in the first cleanup registered, which runs last.
	// Close returns once the store is closed, so the data directory can be
	// opened again at once.
	cpCtx, cpCancel := context.WithCancel(context.WithoutCancel(ctx))
	c.onStop(func() {
		cpCancel()
		if c.cp != nil {
			<-c.cp.Done()
		}
	})
	cpCfg, err := opts.controlPlaneConfig()
	if err != nil {
		return nil, err
	}
	cp, err := controlplane.Start(cpCtx, cpCfg)
	if err != nil {
		return nil, err
	}
	c.cp = cp
	c.step("API server ready at %s", cp.URL)
	if c.admin, err = c.clientFor("admin", "system:masters"); err != nil {
		return nil, err
	}
	if opts.Server.Role == roleServer {
		tok, err := c.ensureJoinToken(ctx)
		if err != nil {
			return nil, err
		}
		c.step("join token %s.<secret> in %s", tok.ID, filepath.Join(opts.DataDir, "join-token"))
		c.step("agents join with: minicluster --role agent --data-dir DIR --server %s --token-file %s --ca-cert-hash %s",
			cp.URL, filepath.Join(opts.DataDir, "join-token"), clientcert.CAHash(cp.CA.Cert))
		if _, err := c.configFor(authz.NetworkPolicyAgentUser); err != nil {
			return nil, err
		}
		c.step("agents enforce NetworkPolicies with: --network-policy-kubeconfig %s",
			filepath.Join(opts.DataDir, "kubeconfigs", sanitize(authz.NetworkPolicyAgentUser)+".kubeconfig"))
	}
	// The controller manager first: its pod and node informers are the
	// scheduler's and the simulated nodes' too.
	if err := c.startControllers(ctx); err != nil {
		return nil, err
	}
	if err := c.startScheduler(ctx); err != nil {
		return nil, err
	}
	for i := 1; i <= opts.Nodes; i++ {
		if err := c.startRealNode(ctx, i); err != nil {
			return nil, err
		}
	}
	if opts.SimNodes > 0 {
		if err := c.startSimNodes(ctx, opts.SimNodes); err != nil {
			return nil, err
		}
	}
	if err := c.startMetricsServer(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// admissionChain is the built-in chain plus the Service IP and node-port
// allocator, last (it reserves addresses when it admits). The allocator
// runs until the control plane stops (ctx).
func admissionChain(ctx context.Context, srv *apiserver.Server) (*admission.Chain, error) {
	// Pods get the API access volume (kube-api-access-*), as on Kubernetes.
	chain := controlplane.DefaultAdmission(srv, admission.WithTokenVolume())
	alloc, err := apiserver.NewServiceAllocator(srv, apiserver.ServiceAllocatorConfig{})
	if err != nil {
		return nil, fmt.Errorf("service allocator: %w", err)
	}
	if err := alloc.Start(ctx); err != nil {
		return nil, fmt.Errorf("service allocator: %w", err)
	}
	chain.Validators = append(chain.Validators, alloc)
	return chain, nil
}

// clientFor writes a kubeconfig for user in groups under the data
// directory and returns a client using it.
func (c *cluster) clientFor(user string, groups ...string) (*client.Client, error) {
	cfg, err := c.configFor(user, groups...)
	if err != nil {
		return nil, err
	}
	return client.New(cfg)
}

// configFor writes a kubeconfig for user in groups and returns its settings.
func (c *cluster) configFor(user string, groups ...string) (*client.Config, error) {
	path := filepath.Join(c.opts.DataDir, "kubeconfigs", sanitize(user)+".kubeconfig")
	if err := c.cp.WriteKubeconfig(path, user, groups...); err != nil {
		return nil, err
	}
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 500, 1000
	return cfg, nil
}

func sanitize(s string) string {
	out := []byte(s)
	for i, b := range out {
		if b == ':' || b == '/' {
			out[i] = '-'
		}
	}
	return string(out)
}

// startScheduler runs the scheduler as system:kube-scheduler.
func (c *cluster) startScheduler(ctx context.Context) error {
	cl, err := c.clientFor("system:kube-scheduler")
	if err != nil {
		return err
	}
	s, err := scheduler.New(scheduler.Config{Client: cl, PriorityClasses: true, VolumeBinding: true, DynamicResources: true,
		Pods: c.podInformer, Nodes: c.nodeInformer, Logger: c.opts.Logger})
	if err != nil {
		return err
	}
	c.schedClient = cl
	if c.opts.Server.Role == roleServer {
		c.goRun("scheduler", func() error { return c.runElected(ctx, s) })
		c.step("scheduler started (user system:kube-scheduler, leader election on %s/%s as %s)", leaseNamespace, schedulerLeaseName, c.opts.Server.Identity)
		return nil
	}
	c.goRun("scheduler", func() error { return s.Run(ctx) })
	c.step("scheduler started (user system:kube-scheduler)")
	return nil
}

// Close stops every component: it ends their context, waits for their
// goroutines, then runs the cleanups in reverse order of registration.
func (c *cluster) Close() {
	c.cancel()
	c.wg.Wait()
	c.mu.Lock()
	stops := c.stops
	c.stops = nil
	c.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
}

package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	certs "github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri"
	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/cri/fake"
	"github.com/orkit/orkit/hostgw"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/kubelet/clientcert"
	"github.com/orkit/orkit/netpol"
	"github.com/orkit/orkit/proxy"
)

// roleAgent runs a kubelet and the service proxy that join a server over
// the network with a bootstrap token, as `kubeadm join` and `k3s agent`.
const roleAgent = "agent"

// Runtimes of an agent (--runtime).
const (
	runtimeContainerd = "containerd"
	runtimeFake       = "fake"
)

// agentOptions are the agent role's settings.
type agentOptions struct {
	// Server is the API server's URL, or that of a balancer in front of
	// several (--server).
	Server string
	// Token is the bootstrap token "<id>.<secret>"; TokenFile names a file
	// holding it (the server's DATA/join-token). Needed on first start only.
	Token, TokenFile string
	// CACertFile names the cluster CA; CACertHash pins it instead
	// ("sha256:<hex>", kubeadm's --discovery-token-ca-cert-hash) and the CA
	// is taken from the server's TLS chain. One is needed on first start;
	// later starts use DATA/pki/ca.crt.
	CACertFile, CACertHash string
	// NodeName defaults to the host name.
	NodeName string
	// NodeIP is the node's InternalIP; zero means 127.0.0.1.
	NodeIP string
	// Runtime is runtimeContainerd (a private containerd in DATA, a CNI
	// bridge on the pod CIDR the controller manager assigns) or runtimeFake
	// (simulated containers, no network: several agents on one host).
	Runtime string
	// Bridge names the CNI bridge (containerd runtime); default orkit0.
	Bridge string
	// ProxyTable names the service proxy's nftables table; "none" runs no
	// proxy. Agents sharing a network namespace need different names.
	ProxyTable string
	// NetworkPolicyKubeconfig names a kubeconfig whose credentials may
	// list and watch pods, namespaces and networkpolicies (a server writes
	// one for system:orkit-netpol); with it and the containerd runtime the
	// agent enforces NetworkPolicies on its pods. Its server URL and CA
	// are replaced by the agent's own.
	NetworkPolicyKubeconfig string
	// NetworkPolicyTable names the enforcer's nftables table.
	NetworkPolicyTable string
	// CertTTL is the client certificate validity asked for (renewed when
	// 80% has passed); zero leaves it to the signer (a year).
	CertTTL time.Duration
	// KubeletPort is the port of the kubelet's HTTPS endpoint (logs,
	// exec) on NodeIP; 0 picks a free one.
	KubeletPort int
	// HostGW keeps host-gw routes (containerd runtime): every other
	// node's pod CIDR via its InternalIP (package hostgw).
	HostGW bool
}

// addAgentFlags registers the agent role's flags on fs.
func (o *options) addAgentFlags(fs *flag.FlagSet) {
	a := &o.Agent
	fs.StringVar(&a.Server, "server", "", "agent: URL of the API server or of the balancer in front of the servers")
	fs.StringVar(&a.Token, "token", "", "agent: bootstrap token <id>.<secret> (the server's DATA/join-token); first start only")
	fs.StringVar(&a.TokenFile, "token-file", "", "agent: file holding the bootstrap token")
	fs.StringVar(&a.CACertFile, "ca-cert-file", "", "agent: the cluster CA certificate (or use --ca-cert-hash)")
	fs.StringVar(&a.CACertHash, "ca-cert-hash", "", "agent: sha256:<hex> of the cluster CA's public key (kubeadm's --discovery-token-ca-cert-hash); the CA is taken from the server's TLS chain")
	fs.StringVar(&a.NodeName, "node-name", "", "agent: the node's name (default the host name)")
	fs.StringVar(&a.NodeIP, "node-ip", "", "agent: the node's InternalIP (default 127.0.0.1)")
	fs.StringVar(&a.Runtime, "runtime", runtimeContainerd, `agent: "containerd" (a private containerd, real containers) or "fake" (simulated containers)`)
	fs.StringVar(&a.Bridge, "bridge", "orkit0", "agent: the CNI bridge of the pods (containerd runtime)")
	fs.StringVar(&a.ProxyTable, "proxy-table", proxy.TableName, `agent: the service proxy's nftables table ("none": no proxy)`)
	fs.StringVar(&a.NetworkPolicyKubeconfig, "network-policy-kubeconfig", "",
		"agent: kubeconfig allowed to read pods, namespaces and networkpolicies (a server's DATA/kubeconfigs/system-orkit-netpol.kubeconfig); with it, NetworkPolicies are enforced on this node's pods (containerd runtime)")
	fs.StringVar(&a.NetworkPolicyTable, "network-policy-table", netpol.TableName, "agent: the NetworkPolicy enforcer's nftables table")
	fs.IntVar(&a.KubeletPort, "kubelet-port", kubelet.DefaultKubeletPort, "agent: port of the kubelet's HTTPS endpoint (logs, exec) on the node IP; 0 picks a free one")
	fs.BoolVar(&a.HostGW, "host-gw-routes", true, "agent: keep a route to every other node's pod CIDR via its InternalIP (host-gw: the nodes share a layer-2 network); containerd runtime")
	fs.DurationVar(&a.CertTTL, "client-cert-ttl", 0, "agent: validity of the node's client certificate (at least 10m; default the signer's, a year); renewed at 80%")
}

// checkAgent validates the agent settings and reads the token file.
func (o *options) checkAgent() error {
	a := &o.Agent
	if o.Nodes != 0 || o.SimNodes != 0 {
		return errors.New("--role agent is one node: no --nodes or --sim-nodes")
	}
	if a.Server == "" {
		return errors.New("--role agent needs --server (the API server's or the balancer's URL)")
	}
	if a.TokenFile != "" {
		b, err := os.ReadFile(a.TokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		a.Token = strings.TrimSpace(string(b))
	}
	if a.CACertHash != "" {
		if _, err := clientcert.ParseCAHash(a.CACertHash); err != nil {
			return fmt.Errorf("--ca-cert-hash: %w", err)
		}
	}
	switch a.Runtime {
	case runtimeContainerd, runtimeFake:
	default:
		return fmt.Errorf("--runtime %q: want containerd or fake", a.Runtime)
	}
	if a.CertTTL != 0 && a.CertTTL < 10*time.Minute {
		return fmt.Errorf("--client-cert-ttl %v: at least 10m", a.CertTTL)
	}
	if a.NodeName == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("--node-name: %w", err)
		}
		a.NodeName = strings.ToLower(host)
	}
	if a.NodeIP != "" {
		if _, err := netip.ParseAddr(a.NodeIP); err != nil {
			return fmt.Errorf("--node-ip: %w", err)
		}
	}
	if a.KubeletPort < 0 || a.KubeletPort > 65535 {
		return fmt.Errorf("--kubelet-port %d: want 0 to 65535", a.KubeletPort)
	}
	return nil
}

// clusterCA returns the cluster CA (PEM): DATA/pki/ca.crt when an earlier
// start wrote it, else --ca-cert-file, else the CA of the server's chain
// that --ca-cert-hash pins. The CA is kept in DATA/pki/ca.crt.
func (c *cluster) clusterCA(ctx context.Context) ([]byte, error) {
	a := c.opts.Agent
	path := filepath.Join(c.opts.DataDir, "pki", "ca.crt")
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	}
	var (
		ca  []byte
		err error
	)
	switch {
	case a.CACertFile != "":
		if ca, err = os.ReadFile(a.CACertFile); err != nil {
			return nil, fmt.Errorf("--ca-cert-file: %w", err)
		}
	case a.CACertHash != "":
		if ca, err = clientcert.DiscoverCA(ctx, a.Server, a.CACertHash); err != nil {
			return nil, err
		}
		c.step("cluster CA taken from %s, its key matches %s", a.Server, a.CACertHash)
	default:
		return nil, fmt.Errorf("no cluster CA in %s: give --ca-cert-file or --ca-cert-hash", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return ca, os.WriteFile(path, ca, 0o644)
}

// startAgent joins the server: the CA, the node's client certificate
// (bootstrapped with the token, kept in DATA/pki and renewed), then the
// kubelet on the chosen runtime and the service proxy.
func (c *cluster) startAgent(ctx context.Context) error {
	a := c.opts.Agent
	c.step("joining %s as node %s (data in %s)", a.Server, a.NodeName, c.opts.DataDir)
	ca, err := c.clusterCA(ctx)
	if err != nil {
		return err
	}
	certs, err := clientcert.New(clientcert.Config{Server: a.Server, CAData: ca, BootstrapToken: a.Token, NodeName: a.NodeName,
		Dir: filepath.Join(c.opts.DataDir, "pki"), ExpirationSeconds: int32(a.CertTTL / time.Second), Logger: c.opts.Logger})
	if err != nil {
		return err
	}
	if err := certs.Bootstrap(ctx); err != nil {
		return fmt.Errorf("node client certificate: %w", err)
	}
	cur := certs.Current()
	c.step("client certificate %s (serial %x) valid until %s, in %s", cur.Subject.CommonName, cur.SerialNumber,
		cur.NotAfter.UTC().Format(time.RFC3339), filepath.Join(c.opts.DataDir, "pki", clientcert.FileName))
	c.goRun("client certificate renewal", func() error { return certs.Run(ctx) })
	cfg := certs.ClientConfig()
	cfg.QPS, cfg.Burst = 100, 200
	cl, err := client.New(cfg)
	if err != nil {
		return err
	}
	c.admin = cl // the node's own identity: everything the agent does is as system:node:<name>
	if err := c.startServingCertificate(ctx, ca, cl); err != nil {
		return err
	}
	if a.ProxyTable != "none" {
		if err := c.startAgentProxy(ctx, cl); err != nil {
			return err
		}
	}
	if a.Runtime == runtimeFake {
		return c.startFakeKubelet(ctx, cl)
	}
	if a.NetworkPolicyKubeconfig != "" {
		if err := c.startAgentNetworkPolicy(ctx, ca); err != nil {
			return err
		}
	}
	return c.startContainerdKubelet(ctx, cl)
}

// startAgentProxy runs the service proxy as the node (the Node
// authorizer lets nodes read services, endpoints and endpointslices).
func (c *cluster) startAgentProxy(ctx context.Context, cl *client.Client) error {
	px, err := proxy.New(proxy.Config{Client: cl, Table: c.opts.Agent.ProxyTable, Logger: c.opts.Logger})
	if err != nil {
		return fmt.Errorf("service proxy: %w", err)
	}
	c.goRun("service proxy", func() error { return px.Run(ctx) })
	c.step("service proxy started (nftables table ip %s)", c.opts.Agent.ProxyTable)
	return nil
}

// startAgentNetworkPolicy runs the NetworkPolicy enforcer for the
// agent's own pods, with the credentials of --network-policy-kubeconfig
// against the agent's server and CA.
func (c *cluster) startAgentNetworkPolicy(ctx context.Context, ca []byte) error {
	a := c.opts.Agent
	cfg, err := client.ConfigFromKubeconfig(a.NetworkPolicyKubeconfig, "")
	if err != nil {
		return fmt.Errorf("--network-policy-kubeconfig: %w", err)
	}
	cfg.Host, cfg.CAData = a.Server, ca
	cl, err := client.New(cfg)
	if err != nil {
		return fmt.Errorf("--network-policy-kubeconfig: %w", err)
	}
	e, err := netpol.New(netpol.Config{Client: cl, Table: a.NetworkPolicyTable, Nodes: []string{a.NodeName}, Logger: c.opts.Logger})
	if err != nil {
		return fmt.Errorf("network policy: %w", err)
	}
	c.goRun("network policy", func() error { return e.Run(ctx) })
	c.step("network policy enforcer started for the pods of %s (nftables table ip %s)", a.NodeName, a.NetworkPolicyTable)
	return nil
}

// nodeIP is the agent's InternalIP.
func (o *options) nodeIP() netip.Addr {
	if o.Agent.NodeIP != "" {
		return netip.MustParseAddr(o.Agent.NodeIP)
	}
	return netip.MustParseAddr("127.0.0.1")
}

// startServingCertificate runs the kubelet serving certificate's manager:
// a certificate for the node's name and IP (signer kubelet-serving),
// asked as the node once and kept in DATA/pki, renewed at 80%; the
// server's approver approves it once the Node reports those names.
func (c *cluster) startServingCertificate(ctx context.Context, ca []byte, cl *client.Client) error {
	a := c.opts.Agent
	m, err := clientcert.New(clientcert.Config{Server: a.Server, CAData: ca, NodeName: a.NodeName, Dir: filepath.Join(c.opts.DataDir, "pki"),
		SignerName: certs.KubeletServingSignerName, DNSNames: []string{a.NodeName}, IPAddresses: []net.IP{c.opts.nodeIP().AsSlice()},
		Client: cl, Logger: c.opts.Logger})
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("cluster CA in %s: no PEM certificate", filepath.Join(c.opts.DataDir, "pki", "ca.crt"))
	}
	c.serving, c.servingCA = m, pool
	c.goRun("kubelet serving certificate", func() error {
		if err := m.Bootstrap(ctx); err != nil {
			// The node runs on without logs and exec, as a kubelet whose
			// serving request was denied does.
			if ctx.Err() == nil {
				c.step("no kubelet serving certificate (kubectl logs and exec will fail): %v", err)
			}
			return nil
		}
		cur := m.Current()
		c.step("kubelet serving certificate for %v %v (serial %x) valid until %s", cur.DNSNames, cur.IPAddresses, cur.SerialNumber,
			cur.NotAfter.UTC().Format(time.RFC3339))
		return m.Run(ctx)
	})
	return nil
}

// agentKubeletConfig is the kubelet settings both runtimes share: the
// node's client, its IP, and its HTTPS endpoint on the serving
// certificate (handshakes fail until the certificate is issued).
func (c *cluster) agentKubeletConfig(cl *client.Client, rt cri.Runtime) kubelet.Config {
	ip := c.opts.nodeIP()
	return kubelet.Config{NodeName: c.opts.Agent.NodeName, Client: cl, Runtime: rt, Logger: c.opts.Logger, NodeIP: ip,
		ServerAddr:            net.JoinHostPort(ip.String(), strconv.Itoa(c.opts.Agent.KubeletPort)),
		GetServingCertificate: c.serving.ServingCertificate, ClientCA: c.servingCA}
}

// startFakeKubelet runs the kubelet over simulated containers.
func (c *cluster) startFakeKubelet(ctx context.Context, cl *client.Client) error {
	rt, err := fake.New()
	if err != nil {
		return err
	}
	k, err := kubelet.New(c.agentKubeletConfig(cl, rt))
	if err != nil {
		return err
	}
	c.goRun("kubelet", func() error { return k.Run(ctx) })
	if err := c.waitNodeReady(ctx, c.opts.Agent.NodeName, true); err != nil {
		return err
	}
	c.step("node %s Ready (kubelet as system:node:%s, simulated containers)", c.opts.Agent.NodeName, c.opts.Agent.NodeName)
	return nil
}

// startContainerdKubelet runs the kubelet on a private containerd in
// DATA/containerd, with pods on a CNI bridge over the pod CIDR the
// controller manager assigns to the Node.
func (c *cluster) startContainerdKubelet(ctx context.Context, cl *client.Client) error {
	a := c.opts.Agent
	if err := checkNodePrerequisites(); err != nil {
		return err
	}
	d, err := c.ensureContainerd(ctx, false)
	if err != nil {
		return err
	}
	stateDir := filepath.Join(c.opts.DataDir, "node")
	rt, err := ctrd.New(ctx, d.Address(), c.runtimeOptions(a.NodeName, stateDir)...)
	if err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	if err := c.importImages(ctx, rt); err != nil {
		rt.Close()
		return err
	}
	network := newPodCIDRNetwork(cl, a.NodeName, a.Bridge, filepath.Join(stateDir, "cni"), c.opts.Logger)
	n := &realNode{name: a.NodeName, runtime: rt, network: network, bridge: a.Bridge, stateDir: stateDir}
	c.onStop(func() { c.stopRealNode(n) })
	c.goRun("pod network", func() error { return network.Run(ctx) })
	cfg := c.agentKubeletConfig(cl, rt)
	cfg.Network = network
	cfg.RootDir, cfg.CgroupRoot = filepath.Join(stateDir, "kubelet"), "/sys/fs/cgroup"
	k, err := kubelet.New(cfg)
	if err != nil {
		return err
	}
	c.goRun("kubelet", func() error { return k.Run(ctx) })
	if a.HostGW {
		if err := c.startHostGW(ctx, cl); err != nil {
			return err
		}
	}
	if err := c.waitNodeReady(ctx, a.NodeName, true); err != nil {
		return err
	}
	c.nodes = append(c.nodes, n)
	c.step("node %s Ready (kubelet as system:node:%s, containerd namespace orkit-%s, pod CIDR %s on bridge %s)",
		a.NodeName, a.NodeName, a.NodeName, network.PodCIDR(), a.Bridge)
	return nil
}

// startHostGW runs the host-gw router: a route to every other node's
// pod CIDR via its InternalIP, in this process's network namespace.
func (c *cluster) startHostGW(ctx context.Context, cl *client.Client) error {
	tab, err := hostgw.NewTable()
	if err != nil {
		return err
	}
	r, err := hostgw.New(hostgw.Config{Client: cl, NodeName: c.opts.Agent.NodeName, Table: tab, Logger: c.opts.Logger})
	if err != nil {
		tab.Close()
		return err
	}
	c.goRun("host-gw routes", func() error {
		defer tab.Close()
		return r.Run(ctx)
	})
	c.step("host-gw routes kept: every other node's pod CIDR via its InternalIP (ip route show proto %d)", hostgw.RouteProtocol)
	return nil
}

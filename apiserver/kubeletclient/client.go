package kubeletclient

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

// idleConnTimeout closes a kubelet connection that carried nothing for
// this long (net/http's default transport's figure).
const idleConnTimeout = 90 * time.Second

// NodeGetter reads a Node by name. The API server passes its own node
// storage; client.For[core.Node](c, "") is one too.
type NodeGetter interface {
	Get(ctx context.Context, name string) (*core.Node, error)
}

// NodeGetterFunc adapts a function to NodeGetter.
type NodeGetterFunc func(ctx context.Context, name string) (*core.Node, error)

// Get calls f.
func (f NodeGetterFunc) Get(ctx context.Context, name string) (*core.Node, error) {
	return f(ctx, name)
}

// Client reaches the kubelets of one API server. It keeps a pool of
// connections per transport (one for streamed answers, one for upgrades);
// it is safe for concurrent use, every call returns when its stream ends,
// and CloseIdleConnections releases the idle ones when the server stops.
type Client struct {
	cfg     Config
	nodes   NodeGetter
	stream  *http.Client
	upgrade *http.Transport
}

// New returns a Client that reads Nodes through nodes and dials kubelets
// as cfg says.
func New(cfg Config, nodes NodeGetter) *Client {
	cfg = cfg.withDefaults()
	dial := (&net.Dialer{Timeout: cfg.DialTimeout}).DialContext
	stream := &http.Transport{DialContext: dial, TLSClientConfig: cfg.tlsConfig(), TLSHandshakeTimeout: cfg.DialTimeout,
		IdleConnTimeout: idleConnTimeout}
	// HTTP/1.1 only (no ForceAttemptHTTP2): upgrades need it.
	upgrade := &http.Transport{DialContext: dial, TLSClientConfig: cfg.tlsConfig(), TLSHandshakeTimeout: cfg.DialTimeout,
		ResponseHeaderTimeout: cfg.UpgradeTimeout, IdleConnTimeout: idleConnTimeout}
	return &Client{cfg: cfg, nodes: nodes, stream: &http.Client{Transport: stream}, upgrade: upgrade}
}

// Transport is the round tripper that reaches kubelets with the API
// server's client certificate, for requests the API server passes on as
// they come (nodes/proxy).
func (c *Client) Transport() http.RoundTripper { return c.stream.Transport }

// CloseIdleConnections closes the connections to kubelets that carry no
// request now.
func (c *Client) CloseIdleConnections() {
	c.stream.CloseIdleConnections()
	c.upgrade.CloseIdleConnections()
}

// Location returns the URL of path (with query) on the kubelet of node:
// https, the node's first address of a preferred type, and the port its
// kubelet advertises in status.daemonEndpoints. A Node that cannot be read
// gives that error; one without an address or port a 400.
func (c *Client) Location(ctx context.Context, node, path string, query url.Values) (*url.URL, error) {
	n, err := c.nodes.Get(ctx, node)
	if err != nil {
		return nil, err
	}
	addr, port := c.address(n), n.Status.DaemonEndpoints.KubeletEndpoint.Port
	if addr == "" || port <= 0 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("node %q has no kubelet endpoint", n.Name))
	}
	return &url.URL{Scheme: "https", Host: net.JoinHostPort(addr, strconv.Itoa(int(port))), Path: path,
		RawQuery: query.Encode()}, nil
}

// address is n's first address of the preferred types, in their order.
func (c *Client) address(n *core.Node) string {
	for _, t := range c.cfg.PreferredAddressTypes {
		for _, a := range n.Status.Addresses {
			if a.Type == t && a.Address != "" {
				return a.Address
			}
		}
	}
	return ""
}

// podPath is the kubelet path of a pod's endpoint: /<endpoint>/<ns>/<pod>
// followed by the container when one is given (names are DNS labels and
// need no escaping).
func podPath(endpoint string, pod *core.Pod, container string) string {
	p := "/" + endpoint + "/" + pod.Namespace + "/" + pod.Name
	if container != "" {
		p += "/" + container
	}
	return p
}

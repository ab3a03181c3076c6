package kubeletclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

// upgradeHeaders are the request headers a protocol upgrade (WebSocket or
// SPDY) needs; nothing else of the caller's request reaches a kubelet.
var upgradeHeaders = [...]string{"Connection", "Upgrade", "Sec-Websocket-Key", "Sec-Websocket-Version",
	"Sec-Websocket-Protocol", "X-Stream-Protocol-Version", "User-Agent"}

// Exec proxies the pods/exec request r for opts (whose container the
// caller has resolved and checked) to the exec endpoint of pod's kubelet;
// see Upgrade for what is written to w and when an error is returned.
func (c *Client) Exec(ctx context.Context, pod *core.Pod, opts core.PodExecOptions, w http.ResponseWriter, r *http.Request) error {
	return c.Upgrade(ctx, pod.Spec.NodeName, podPath("exec", pod, opts.Container), opts.KubeletQuery(), w, r)
}

// Attach proxies the pods/attach request r for opts (container resolved
// and checked by the caller) to the attach endpoint of pod's kubelet; see
// Upgrade.
func (c *Client) Attach(ctx context.Context, pod *core.Pod, opts core.PodAttachOptions, w http.ResponseWriter, r *http.Request) error {
	return c.Upgrade(ctx, pod.Spec.NodeName, podPath("attach", pod, opts.Container), opts.KubeletQuery(), w, r)
}

// PortForward proxies the pods/portforward request r to the portForward
// endpoint of pod's kubelet (/portForward/{ns}/{pod}); see Upgrade.
func (c *Client) PortForward(ctx context.Context, pod *core.Pod, opts core.PodPortForwardOptions, w http.ResponseWriter, r *http.Request) error {
	return c.Upgrade(ctx, pod.Spec.NodeName, podPath("portForward", pod, ""), opts.Query(), w, r)
}

// Upgrade proxies the connection upgrade in r to path (with query) on the
// kubelet of node, and then the raw stream both ways until either side
// closes it; the streaming subresources (exec, and attach and port-forward
// later) differ only in path and query. Only the upgrade headers are
// forwarded, over a connection that presents the API server's client
// certificate. The kubelet's answer goes to w as it is: the switch of
// protocols, or its error Status. An error is returned, with nothing
// written to w, when the kubelet is not reached: the Node cannot be read,
// has no kubelet endpoint (400), or the dial or handshake fails (503,
// "error dialing backend"); the caller answers with it. w must support
// Hijack through http.ResponseController. ctx bounds finding the kubelet;
// the stream lives as long as r's context, and Upgrade returns when it has
// ended.
func (c *Client) Upgrade(ctx context.Context, node, path string, query url.Values, w http.ResponseWriter, r *http.Request) error {
	target, err := c.Location(ctx, node, path, query)
	if err != nil {
		return err
	}
	var proxyErr error
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL, pr.Out.Host = target, target.Host
			out := http.Header{} // pr.Out.Header: hop-by-hop headers removed, Connection and Upgrade set again
			for _, k := range upgradeHeaders {
				if v, ok := pr.Out.Header[k]; ok {
					out[k] = v
				}
			}
			pr.Out.Header = out
		},
		Transport: c.upgrade,
		ErrorHandler: func(_ http.ResponseWriter, _ *http.Request, err error) {
			proxyErr = apierrors.NewServiceUnavailable(fmt.Sprintf("error dialing backend: kubelet of node %q: %v", node, err))
		},
	}
	rp.ServeHTTP(w, r)
	return proxyErr
}

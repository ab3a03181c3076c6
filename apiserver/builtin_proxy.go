package apiserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/store"
)

// The proxy subresources (pods/proxy, services/proxy, nodes/proxy) pass
// any HTTP request on to a pod, one of a Service's ready endpoints, or a
// node's kubelet, as kube-apiserver does: `kubectl proxy` then
// /api/v1/namespaces/default/services/web:80/proxy/ reaches the Service.
// The name segment is name, name:port or scheme:name:port. The client's
// credentials (Authorization, impersonation headers) are not passed on.

var (
	discoveryGVRSlices = discovery.GroupVersion().WithResource("endpointslices")
	// plainTransport reaches pods and Service endpoints by IP, where no
	// serving certificate can be verified: like kube-apiserver's proxy
	// transport it does not verify them (https:name:port).
	plainTransport = &http.Transport{
		Proxy:           nil,
		DialContext:     (&net.Dialer{}).DialContext,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // IP-addressed backends, as kube-apiserver
	}
)

// proxyTarget is where a proxy request goes.
type proxyTarget struct {
	url       *url.URL
	transport http.RoundTripper
}

// splitProxyName splits scheme:name:port as Kubernetes' SplitSchemeNamePort.
func splitProxyName(id string) (scheme, name, port string, err error) {
	parts := strings.Split(id, ":")
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		name, port = parts[0], parts[1]
	case 3:
		scheme, name, port = parts[0], parts[1], parts[2]
	default:
		return "", "", "", apierrors.NewBadRequest(fmt.Sprintf("invalid proxy name %q: want name, name:port or scheme:name:port", id))
	}
	if name == "" || (scheme != "" && scheme != "http" && scheme != "https") {
		return "", "", "", apierrors.NewBadRequest(fmt.Sprintf("invalid proxy name %q: want name, name:port or scheme:name:port", id))
	}
	return scheme, name, port, nil
}

// proxySubresource serves a proxy subresource with locate finding the
// target of the named object.
func (s *Server) proxySubresource(locate func(ctx context.Context, req *Request, scheme, port string) (*proxyTarget, error)) SubresourceFunc {
	return func(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
		scheme, name, port, err := splitProxyName(req.Info.Name)
		if err != nil {
			writeError(w, err)
			return
		}
		prefix, rest := splitProxyPath(r.URL.Path, req.Info.Name)
		named := *req
		info := *req.Info
		info.Name = name
		named.Info = &info
		t, err := locate(ctx, &named, scheme, port)
		if err != nil {
			writeError(w, err)
			return
		}
		if rest == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			redirectToSlash(w, r) // as kube-apiserver (issue 4958)
			return
		}
		if rest == "" {
			rest = "/"
		}
		target := *t.url
		target.Path = strings.TrimSuffix(target.Path, "/") + rest
		target.RawQuery = r.URL.RawQuery
		rw := &proxyRewriter{prefix: prefix, backendHost: target.Host, requestHost: r.Host}
		rp := &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.URL = &target
				pr.Out.Host = target.Host
				pr.Out.Header.Set("X-Forwarded-Uri", prefix+rest)
				pr.Out.Header.Del("Authorization")
				for k := range pr.Out.Header {
					if strings.HasPrefix(k, "Impersonate-") {
						pr.Out.Header.Del(k)
					}
				}
			},
			Transport:      t.transport,
			ModifyResponse: rw.modifyResponse,
			ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
				if apierrors.FromError(err) != nil {
					writeError(w, err)
					return
				}
				writeError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach %s: %v", target.Host, err)))
			},
		}
		rp.ServeHTTP(w, r.WithContext(ctx))
	}
}

// splitProxyPath splits path at .../{id}/proxy: prefix is the path up to
// and including /proxy, rest what follows ("" when nothing).
func splitProxyPath(path, id string) (prefix, rest string) {
	marker := "/" + id + "/proxy"
	i := strings.Index(path, marker)
	if i < 0 {
		return path, "/"
	}
	return path[:i+len(marker)], path[i+len(marker):]
}

// redirectToSlash answers 301 to the request's path with a slash added.
func redirectToSlash(w http.ResponseWriter, r *http.Request) {
	loc := r.URL.Path + "/"
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusMovedPermanently)
}

// proxyableIP refuses addresses the API server must not be made to reach
// on a client's behalf (loopback, link-local), as Kubernetes does.
func proxyableIP(ip string) error {
	a, err := netip.ParseAddr(ip)
	switch {
	case err != nil:
		return apierrors.NewBadRequest(fmt.Sprintf("address %q is not an IP", ip))
	case a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast():
		return apierrors.NewBadRequest("address not allowed")
	}
	return nil
}

// locatePod: the pod's IP and the given port, or its first container port.
func (s *Server) locatePod(ctx context.Context, req *Request, scheme, port string) (*proxyTarget, error) {
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		return nil, err
	}
	pod := obj.(*core.Pod)
	if port == "" {
		for _, c := range pod.Spec.Containers {
			if len(c.Ports) > 0 {
				port = strconv.Itoa(int(c.Ports[0].ContainerPort))
				break
			}
		}
	}
	if err := proxyableIP(pod.Status.PodIP); err != nil {
		return nil, err
	}
	return hostTarget(scheme, pod.Status.PodIP, port), nil
}

// hostTarget is scheme://ip[:port] over a plain transport.
func hostTarget(scheme, ip, port string) *proxyTarget {
	host := ip
	if port != "" {
		host = net.JoinHostPort(ip, port)
	} else if strings.Contains(ip, ":") {
		host = "[" + ip + "]"
	}
	if scheme == "" {
		scheme = "http"
	}
	return &proxyTarget{url: &url.URL{Scheme: scheme, Host: host}, transport: plainTransport}
}

// locateService: a random ready endpoint of the Service port named (or
// numbered) by port, from the Service's EndpointSlices.
func (s *Server) locateService(ctx context.Context, req *Request, scheme, port string) (*proxyTarget, error) {
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		return nil, err
	}
	svc := obj.(*core.Service)
	portName := port
	if n, err := strconv.Atoi(port); err == nil {
		found := false
		for _, p := range svc.Spec.Ports {
			if int(p.Port) == n {
				portName, found = p.Name, true
				break
			}
		}
		if !found {
			return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", n, svc.Name))
		}
	}
	var candidates []*proxyTarget
	slices, err := s.serviceSlices(ctx, svc)
	if err != nil {
		return nil, err
	}
	for _, sl := range slices {
		for _, p := range sl.Ports {
			if p.Port == nil || p.NameValue() != portName {
				continue
			}
			for _, e := range sl.Endpoints {
				if len(e.Addresses) > 0 && e.IsReady() && proxyableIP(e.Addresses[0]) == nil {
					candidates = append(candidates, hostTarget(scheme, e.Addresses[0], strconv.Itoa(int(*p.Port))))
				}
			}
		}
	}
	if len(candidates) == 0 {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", svc.Name))
	}
	return candidates[rand.IntN(len(candidates))], nil
}

// serviceSlices reads the EndpointSlices of svc from storage.
func (s *Server) serviceSlices(ctx context.Context, svc *core.Service) ([]*discovery.EndpointSlice, error) {
	res, ok := s.lookup(discoveryGVRSlices)
	if !ok {
		return nil, nil
	}
	list, err := res.storage.ListRaw(ctx, svc.Namespace, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*discovery.EndpointSlice
	for _, kv := range list.KVs {
		obj, err := res.storage.Decode(kv)
		if err != nil {
			return nil, res.storage.apiError(err, nameFromKey(kv.Key))
		}
		if sl := obj.(*discovery.EndpointSlice); sl.Labels[discovery.LabelServiceName] == svc.Name {
			out = append(out, sl)
		}
	}
	return out, nil
}

// locateNode: the node's kubelet (https, its advertised port unless one is
// given), over the API server's kubelet client credentials.
func (s *Server) locateNode(ctx context.Context, req *Request, scheme, port string) (*proxyTarget, error) {
	if s.kubelet == nil {
		return nil, apierrors.NewServiceUnavailable("the API server has no kubelet client configured")
	}
	u, err := s.kubelet.Location(ctx, req.Info.Name, "/", nil)
	if err != nil {
		return nil, err
	}
	if port != "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	if scheme != "" {
		u.Scheme = scheme
	}
	return &proxyTarget{url: u, transport: s.kubelet.Transport()}, nil
}

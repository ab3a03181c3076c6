package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/api/apiregistration"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
)

var apiServiceGVR = meta.GroupVersionResource{Group: apiregistration.GroupName, Version: apiregistration.Version, Resource: "apiservices"}

// The headers in which the server passes the user of a proxied request
// to the server of an aggregated API (kube-aggregator's, and the ones
// kubeadm configures as --requestheader-*-headers): the name, each
// group, and each extra value under its key (URL path-escaped).
const (
	RemoteUserHeader        = "X-Remote-User"
	RemoteGroupHeader       = "X-Remote-Group"
	RemoteExtraHeaderPrefix = "X-Remote-Extra-"
)

// aggregatorResync is how often every APIService's server is checked
// besides on each change to APIServices.
const aggregatorResync = time.Second

// remoteAPI is a group/version served by another server behind a Service
// (an APIService with spec.service): where it is, how to reach it, and
// the resources its discovery listed at the last check.
type remoteAPI struct {
	name      string
	available bool
	reason    string
	resources []resourceDiscovery
	proxy     *httputil.ReverseProxy
}

// aggregator holds the remote group/versions. Safe for concurrent use.
type aggregator struct {
	mu      sync.RWMutex
	remotes map[meta.GroupVersion]*remoteAPI
	// transports are the transports of the APIServices by name, reused
	// while the settings they were made from (key) stay the same, so the
	// checks and the proxy keep their connections. Only the aggregator
	// loop touches it.
	transports map[string]keyedTransport
}

// keyedTransport is a transport and what it was made from.
type keyedTransport struct {
	key string
	tr  *http.Transport
}

// transportFor returns the transport of an APIService, reusing the last
// one when its settings are unchanged (closing the idle connections of
// a replaced one).
func (s *Server) transportFor(as *apiregistration.APIService) (*http.Transport, error) {
	key := fmt.Sprintf("%s/%s %t %x", as.Spec.Service.Namespace, as.Spec.Service.Name, as.Spec.InsecureSkipTLSVerify, as.Spec.CABundle)
	if kt, ok := s.agg.transports[as.Name]; ok {
		if kt.key == key {
			return kt.tr, nil
		}
		kt.tr.CloseIdleConnections()
		delete(s.agg.transports, as.Name)
	}
	tr, err := s.remoteTransport(as)
	if err != nil {
		return nil, err
	}
	if s.agg.transports == nil {
		s.agg.transports = map[string]keyedTransport{}
	}
	s.agg.transports[as.Name] = keyedTransport{key: key, tr: tr}
	return tr, nil
}

// dropTransports closes and forgets the transports of APIServices no
// longer present (keep holds the names present).
func (s *Server) dropTransports(keep map[string]bool) {
	for name, kt := range s.agg.transports {
		if !keep[name] {
			kt.tr.CloseIdleConnections()
			delete(s.agg.transports, name)
		}
	}
}

func (a *aggregator) get(gv meta.GroupVersion) *remoteAPI {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.remotes[gv]
}

func (a *aggregator) groupVersions() map[meta.GroupVersion]*remoteAPI {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make(map[meta.GroupVersion]*remoteAPI, len(a.remotes))
	for gv, r := range a.remotes {
		out[gv] = r
	}
	return out
}

// remoteFor returns the remote group/version a request addresses, or nil.
func (s *Server) remoteFor(info *RequestInfo) *remoteAPI {
	if info.APIPrefix != "apis" || info.APIVersion == "" {
		return nil
	}
	return s.agg.get(meta.GroupVersion{Group: info.APIGroup, Version: info.APIVersion})
}

// serveRemote proxies an authorized request to the server of its
// group/version, with the user in the X-Remote-User and X-Remote-Group
// headers (and the API server's proxy client certificate), as
// kube-aggregator does; 503 while the server is unavailable.
func (s *Server) serveRemote(w http.ResponseWriter, r *http.Request, rm *remoteAPI, u *authn.User) {
	if !rm.available || rm.proxy == nil {
		writeError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("the server is currently unable to handle the request (%s: %s)", rm.name, rm.reason)))
		return
	}
	out := r.Clone(r.Context())
	setRemoteUser(out.Header, u)
	rm.proxy.ServeHTTP(w, out)
}

// setRemoteUser replaces the credentials and identity headers of h with
// u in the front-proxy headers, as kube-aggregator's proxy does: nothing
// the client sent can claim another identity.
func setRemoteUser(h http.Header, u *authn.User) {
	for k := range h {
		switch ck := http.CanonicalHeaderKey(k); {
		case ck == "Authorization", strings.HasPrefix(ck, "Impersonate-"),
			ck == RemoteUserHeader, ck == RemoteGroupHeader, strings.HasPrefix(ck, RemoteExtraHeaderPrefix):
			delete(h, k)
		}
	}
	h.Set(RemoteUserHeader, u.Name)
	for _, g := range u.Groups {
		h.Add(RemoteGroupHeader, g)
	}
	for k, vs := range u.Extra {
		for _, v := range vs {
			h.Add(RemoteExtraHeaderPrefix+url.PathEscape(k), v)
		}
	}
}

// startAggregator keeps the remote group/versions in line with the
// APIServices, and their Available conditions with what their servers
// answer, until ctx ends (Start calls it).
func (s *Server) startAggregator(ctx context.Context) {
	cache, ok := s.Cache(apiServiceGVR)
	if !ok {
		return
	}
	go func() {
		select {
		case <-cache.Synced():
		case <-ctx.Done():
			return
		}
		t := time.NewTicker(aggregatorResync)
		defer t.Stop()
		for ctx.Err() == nil {
			_, w, err := cache.WatchWith("", Filter{IncludeUninitialized: true}, WatchOptions{Start: StartNow})
			if err != nil {
				s.log.Error("apiserver: aggregator cannot watch APIServices", "err", err)
				return
			}
			s.syncAPIServices(ctx, cache)
			s.aggregatorLoop(ctx, cache, w, t.C)
			cache.Unwatch(w)
		}
	}()
}

func (s *Server) aggregatorLoop(ctx context.Context, cache *WatchCache, w *cacheWatcher, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.done:
			return
		case <-w.ch:
			for drained := false; !drained; {
				select {
				case <-w.ch:
				default:
					drained = true
				}
			}
		case <-tick:
		}
		s.syncAPIServices(ctx, cache)
	}
}

// syncAPIServices checks every APIService with a Service and records the
// result.
func (s *Server) syncAPIServices(ctx context.Context, cache *WatchCache) {
	var list []*apiregistration.APIService
	cache.Objects(func(o meta.Object) { list = append(list, o.(*apiregistration.APIService)) })
	next := map[meta.GroupVersion]*remoteAPI{}
	present := map[string]bool{}
	for _, as := range list {
		if as.Spec.Service == nil {
			s.setAvailable(ctx, as, meta.ConditionTrue, "Local", "Local APIServices are always available")
			continue
		}
		present[as.Name] = true
		rm := s.checkRemote(ctx, as)
		next[meta.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}] = rm
		st := meta.ConditionTrue
		msg := "all checks passed"
		if !rm.available {
			st, msg = meta.ConditionFalse, rm.reason
		}
		reason := "Passed"
		if !rm.available {
			reason = failureReason(rm.reason)
		}
		s.setAvailable(ctx, as, st, reason, msg)
	}
	s.dropTransports(present)
	s.agg.mu.Lock()
	s.agg.remotes = next
	s.agg.mu.Unlock()
}

// checkRemote resolves an APIService's Service to an endpoint and asks
// the server for its group/version's discovery.
func (s *Server) checkRemote(ctx context.Context, as *apiregistration.APIService) *remoteAPI {
	rm := &remoteAPI{name: as.Name}
	host, err := s.resolveService(ctx, as.Spec.Service)
	if err != nil {
		rm.reason = err.Error()
		return rm
	}
	tr, err := s.transportFor(as)
	if err != nil {
		rm.reason = err.Error()
		return rm
	}
	base := &url.URL{Scheme: "https", Host: host}
	rm.proxy = &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(base); pr.Out.Host = host },
		Transport: tr,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err)))
		},
	}
	rm.resources, err = fetchResources(ctx, tr, base, as.Spec.Group, as.Spec.Version)
	if err != nil {
		rm.reason = fmt.Sprintf("failing or missing response from %s: %v", base, err)
		return rm
	}
	rm.available = true
	return rm
}

// resolveService returns host:port of a ready endpoint of the Service, or
// of its external name (ExternalName Services, on the APIService's port),
// as kube-aggregator resolves them.
func (s *Server) resolveService(ctx context.Context, ref *apiregistration.ServiceReference) (string, error) {
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	svcs, ok := s.Storage(coreGVR("services"))
	eps, ok2 := s.Storage(coreGVR("endpoints"))
	if !ok || !ok2 {
		return "", fmt.Errorf("service/%s in %q is not present", ref.Name, ref.Namespace)
	}
	o, err := svcs.Get(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return "", fmt.Errorf("service/%s in %q is not present", ref.Name, ref.Namespace)
	}
	svc := o.(*core.Service)
	if svc.Spec.Type == core.ServiceTypeExternalName {
		return net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port))), nil
	}
	var sp *core.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		return "", fmt.Errorf("service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port)
	}
	o, err = eps.Get(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return "", fmt.Errorf("endpoints for service/%s in %q have no addresses", ref.Name, ref.Namespace)
	}
	for _, sub := range o.(*core.Endpoints).Subsets {
		for _, p := range sub.Ports {
			if p.Name != sp.Name || len(sub.Addresses) == 0 {
				continue
			}
			return net.JoinHostPort(sub.Addresses[0].IP, strconv.Itoa(int(p.Port))), nil
		}
	}
	return "", fmt.Errorf("endpoints for service/%s in %q have no addresses with port name %q", ref.Name, ref.Namespace, sp.Name)
}

// remoteTransport trusts the APIService's CA bundle (or nothing, with
// insecureSkipTLSVerify) for the name <service>.<namespace>.svc, and
// presents the proxy client certificate.
func (s *Server) remoteTransport(as *apiregistration.APIService) (*http.Transport, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: as.Spec.Service.Name + "." + as.Spec.Service.Namespace + ".svc"}
	if as.Spec.InsecureSkipTLSVerify {
		tc.InsecureSkipVerify = true // the APIService asks for it explicitly
	} else {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(as.Spec.CABundle) {
			return nil, fmt.Errorf("spec.caBundle of %s holds no certificate", as.Name)
		}
		tc.RootCAs = pool
	}
	if c := s.cfg.ProxyClientCert; c != nil {
		tc.Certificates = []tls.Certificate{*c}
	}
	return &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 5 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second, IdleConnTimeout: 90 * time.Second}, nil
}

// apiResourceList is the part of a remote APIResourceList discovery uses.
type apiResourceList struct {
	GroupVersion string `json:"groupVersion"`
	Resources    []struct {
		Name         string   `json:"name"`
		SingularName string   `json:"singularName"`
		Namespaced   bool     `json:"namespaced"`
		Kind         string   `json:"kind"`
		Verbs        []string `json:"verbs"`
		ShortNames   []string `json:"shortNames"`
		Categories   []string `json:"categories"`
	} `json:"resources"`
}

// fetchResources asks the server for /apis/<group>/<version> and returns
// its resources in the aggregated discovery form.
func fetchResources(ctx context.Context, tr http.RoundTripper, base *url.URL, group, version string) ([]resourceDiscovery, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.String()+"/apis/"+group+"/"+version, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	// As kube-aggregator's availability check: the aggregator's own user
	// in system:masters, which delegated authorization always allows.
	setRemoteUser(req.Header, &authn.User{Name: "system:kube-aggregator", Groups: []string{authn.GroupMasters}})
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("bad status from %s: %d", req.URL, resp.StatusCode)
	}
	var l apiResourceList
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("decode discovery of %s/%s: %w", group, version, err)
	}
	var out []resourceDiscovery
	for _, r := range l.Resources {
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		out = append(out, resourceDiscovery{Resource: r.Name, SingularResource: r.SingularName, Scope: scope, Verbs: r.Verbs,
			ShortNames: r.ShortNames, Categories: r.Categories,
			ResponseKind: &groupVersionKind{Group: group, Version: version, Kind: r.Kind}})
	}
	return out, nil
}

func failureReason(msg string) string {
	switch {
	case len(msg) >= 7 && msg[:7] == "service":
		return "ServiceNotFound"
	case len(msg) >= 9 && msg[:9] == "endpoints":
		return "MissingEndpoints"
	}
	return "FailedDiscoveryCheck"
}

// setAvailable writes an APIService's Available condition when it
// changes.
func (s *Server) setAvailable(ctx context.Context, as *apiregistration.APIService, st meta.ConditionStatus, reason, msg string) {
	c := as.Available()
	if c.Status == st && c.Reason == reason && c.Message == msg {
		return
	}
	res, ok := s.lookup(apiServiceGVR)
	if !ok {
		return
	}
	_, err := res.storage.GuaranteedUpdate(ctx, "", as.Name, true, func(cur meta.Object) (meta.Object, error) {
		next := meta.DeepCopy(cur).(*apiregistration.APIService)
		if !next.SetAvailable(st, reason, msg, meta.Now()) {
			return nil, errNoChange
		}
		return next, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("apiserver: update APIService status", "apiservice", as.Name, "err", err)
	}
}

// apiServiceTable is kube-aggregator's printer of APIServices: the
// Service (or Local) and the Available condition ("False (Reason)" when
// not available).
var apiServiceTable = &TableConvertor{
	Columns: []TableColumn{
		col("Service", "string", "The reference to the service that hosts this API endpoint.", 0),
		col("Available", "string", "Whether this service is available.", 0),
	},
	Cells: func(obj meta.Object) []any {
		as := obj.(*apiregistration.APIService)
		svc := "Local"
		if r := as.Spec.Service; r != nil {
			svc = r.Namespace + "/" + r.Name
		}
		avail := "Unknown"
		if c := as.Available(); c.Status != "" {
			avail = string(c.Status)
			if c.Status != meta.ConditionTrue {
				avail += " (" + c.Reason + ")"
			}
		}
		return []any{svc, avail}
	},
}

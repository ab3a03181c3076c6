package apiserver

import (
	"net/http"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/orkit/orkit/api/authentication"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

func isHealthPath(p string) bool {
	return p == "/healthz" || p == "/livez" || p == "/readyz" || strings.HasPrefix(p, "/healthz/") ||
		strings.HasPrefix(p, "/livez/") || strings.HasPrefix(p, "/readyz/")
}

// serveNonResource serves health, version, metrics, discovery and OpenAPI.
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request, info *RequestInfo) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case isHealthPath(p):
		s.serveHealth(w, r, p)
	case p == "/version":
		writeJSON(w, http.StatusOK, Version)
	case p == "/metrics":
		promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	case (p == "/api" || p == "/apis") && wantsAggregated(r.Header.Get("Accept")):
		s.serveAggregated(w, p == "/api")
	case p == "/api":
		w.Header().Set("Vary", "Accept")
		writeJSON(w, http.StatusOK, map[string]any{
			"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []map[string]string{{"clientCIDR": "0.0.0.0/0", "serverAddress": s.cfg.Listen}},
		})
	case p == "/apis":
		w.Header().Set("Vary", "Accept")
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": s.apiGroups()})
	case info.APIPrefix == "apis" && info.APIVersion == "" && strings.Count(p, "/") == 2:
		g := strings.TrimPrefix(p, "/apis/")
		for _, grp := range s.apiGroups() {
			if grp.Name == g {
				writeJSON(w, http.StatusOK, struct {
					Kind       string `json:"kind"`
					APIVersion string `json:"apiVersion"`
					apiGroup
				}{"APIGroup", "v1", grp})
				return
			}
		}
		writeError(w, apierrors.NewPathNotFound())
	case info.APIVersion != "":
		s.serveResourceList(w, meta.GroupVersion{Group: info.APIGroup, Version: info.APIVersion})
	case p == pathOIDCDiscovery || p == pathOIDCKeySet:
		s.serveOIDC(w, p)
	case p == "/openapi/v2":
		s.serveOpenAPIV2(w, r)
	case strings.HasPrefix(p, "/openapi/"):
		s.serveOpenAPI(w, r)
	case p == "/debug/pprof" || strings.HasPrefix(p, "/debug/pprof/"):
		serveProfiling(w, r)
	default:
		writeError(w, apierrors.NewPathNotFound())
	}
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

// apiGroups lists the served groups other than core, sorted by name.
func (s *Server) apiGroups() []apiGroup {
	s.mu.RLock()
	versions := map[string]map[string]bool{}
	for gvr := range s.resources {
		if gvr.Group == "" {
			continue
		}
		if versions[gvr.Group] == nil {
			versions[gvr.Group] = map[string]bool{}
		}
		versions[gvr.Group][gvr.Version] = true
	}
	s.mu.RUnlock()
	for gv := range s.agg.groupVersions() {
		if versions[gv.Group] == nil {
			versions[gv.Group] = map[string]bool{}
		}
		versions[gv.Group][gv.Version] = true
	}
	var out []apiGroup
	for g, vs := range versions {
		grp := apiGroup{Name: g}
		for v := range vs {
			grp.Versions = append(grp.Versions, groupVersion{GroupVersion: g + "/" + v, Version: v})
		}
		sort.Slice(grp.Versions, func(i, j int) bool { return versionLess(grp.Versions[j].Version, grp.Versions[i].Version) })
		grp.PreferredVersion = grp.Versions[0]
		out = append(out, grp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// versionLess orders versions as Kubernetes prefers them: GA above beta
// above alpha, higher numbers first within each.
func versionLess(a, b string) bool {
	rank := func(v string) (int, string) {
		switch {
		case strings.Contains(v, "alpha"):
			return 0, v
		case strings.Contains(v, "beta"):
			return 1, v
		}
		return 2, v
	}
	ra, va := rank(a)
	rb, vb := rank(b)
	if ra != rb {
		return ra < rb
	}
	if len(va) != len(vb) {
		return len(va) < len(vb)
	}
	return va < vb
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
}

var (
	allVerbs        = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	subresourceVerb = map[string][]string{
		"status": {"get", "patch", "update"}, "scale": {"get", "patch", "update"}, "approval": {"get", "patch", "update"},
		"binding": {"create"}, "eviction": {"create"}, "log": {"get"}, "exec": {"create", "get"},
		"attach": {"create", "get"}, "portforward": {"create", "get"}, "ephemeralcontainers": {"get", "patch", "update"}, "resize": {"get", "patch", "update"}, "finalize": {"update"},
		"token": {"create"},
	}
)

// serveResourceList answers /api/v1 and /apis/<group>/<version>.
func (s *Server) serveResourceList(w http.ResponseWriter, gv meta.GroupVersion) {
	s.mu.RLock()
	var list []apiResource
	for gvr, r := range s.resources {
		if gvr.GroupVersion() != gv {
			continue
		}
		t := r.Type
		list = append(list, apiResource{
			Name: t.Resource, SingularName: t.Singular, Namespaced: t.Namespaced, Kind: t.Kind.Kind,
			Verbs: resourceVerbs(r), ShortNames: t.ShortNames, Categories: t.Categories,
		})
		for _, sub := range t.Subresources {
			if sub == "token" && s.cfg.ServiceAccountTokens == nil {
				continue // no issuer: not served
			}
			kind, group, version := t.Kind.Kind, "", ""
			switch sub {
			case "scale":
				kind = "Scale"
			case "exec":
				kind = "PodExecOptions"
			case "attach":
				kind = "PodAttachOptions"
			case "portforward":
				kind = "PodPortForwardOptions"
			case "eviction": // kubectl drain evicts only when this names policy/v1 Eviction
				kind, group, version = "Eviction", "policy", "v1"
			case "token":
				kind, group, version = "TokenRequest", authentication.GroupName, authentication.Version
			}
			list = append(list, apiResource{Name: t.Resource + "/" + sub, Namespaced: t.Namespaced, Kind: kind,
				Group: group, Version: version, Verbs: subresourceVerb[sub]})
		}
	}
	s.mu.RUnlock()
	if list == nil {
		writeError(w, apierrors.NewPathNotFound())
		return
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	writeJSON(w, http.StatusOK, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv.String(), "resources": list})
}

func resourceVerbs(r *served) []string {
	if r.Verbs != nil {
		return r.Verbs
	}
	return allVerbs
}

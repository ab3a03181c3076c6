package apiserver

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// aggregatedContentType is the media type of apidiscovery.k8s.io/v2
// APIGroupDiscoveryList, the aggregated discovery document client-go and
// kubectl ask /api and /apis for first (one request instead of one per
// group version).
const aggregatedContentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// wantsAggregated says whether the Accept header's first media type this
// server can answer is the aggregated discovery document (JSON, v2): as
// kube-apiserver, it serves the client's earliest acceptable choice, and
// the legacy document to clients that accept only plain JSON.
func wantsAggregated(accept string) bool {
	for _, entry := range strings.Split(accept, ",") {
		parts := strings.Split(entry, ";")
		base := strings.ToLower(strings.TrimSpace(parts[0]))
		params := map[string]string{}
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			params[strings.ToLower(k)] = v
		}
		switch {
		case base == "application/json" && params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" &&
			params["as"] == "APIGroupDiscoveryList":
			return true
		case base == "application/json" && params["g"] == "" && params["as"] == "":
			return false
		case base == "*/*" || base == "application/*":
			return false
		}
	}
	return false
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type subresourceDiscovery struct {
	Subresource  string            `json:"subresource"`
	ResponseKind *groupVersionKind `json:"responseKind,omitempty"`
	Verbs        []string          `json:"verbs"`
}

type resourceDiscovery struct {
	Resource         string                 `json:"resource"`
	ResponseKind     *groupVersionKind      `json:"responseKind,omitempty"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []subresourceDiscovery `json:"subresources,omitempty"`
}

type versionDiscovery struct {
	Version   string              `json:"version"`
	Resources []resourceDiscovery `json:"resources,omitempty"`
	Freshness string              `json:"freshness"`
}

type groupDiscovery struct {
	Metadata struct {
		Name string `json:"name,omitempty"`
	} `json:"metadata"`
	Versions []versionDiscovery `json:"versions,omitempty"`
}

// serveAggregated answers /api (core) or /apis (every other group) with
// an APIGroupDiscoveryList.
func (s *Server) serveAggregated(w http.ResponseWriter, core bool) {
	var groups []groupDiscovery
	if core {
		g := groupDiscovery{Versions: []versionDiscovery{s.versionDiscovery(meta.GroupVersion{Version: "v1"})}}
		groups = append(groups, g)
	} else {
		for _, ag := range s.apiGroups() {
			var g groupDiscovery
			g.Metadata.Name = ag.Name
			for _, v := range ag.Versions { // preferred first
				g.Versions = append(g.Versions, s.versionDiscovery(meta.GroupVersion{Group: ag.Name, Version: v.Version}))
			}
			groups = append(groups, g)
		}
	}
	b, err := json.Marshal(map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
		"metadata": map[string]any{}, "items": groups})
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	// The client tells the documents apart by the media type.
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Content-Type", aggregatedContentType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// versionDiscovery lists the resources served in gv, their subresources
// nested, sorted by name.
func (s *Server) versionDiscovery(gv meta.GroupVersion) versionDiscovery {
	if rm := s.agg.get(gv); rm != nil {
		fresh := "Current"
		if !rm.available {
			fresh = "Stale"
		}
		return versionDiscovery{Version: gv.Version, Resources: rm.resources, Freshness: fresh}
	}
	s.mu.RLock()
	var out []resourceDiscovery
	for gvr, r := range s.resources {
		if gvr.GroupVersion() != gv {
			continue
		}
		t := r.Type
		scope := "Cluster"
		if t.Namespaced {
			scope = "Namespaced"
		}
		kind := &groupVersionKind{Group: gv.Group, Version: gv.Version, Kind: t.Kind.Kind}
		rd := resourceDiscovery{Resource: t.Resource, ResponseKind: kind, Scope: scope, SingularResource: t.Singular,
			Verbs: resourceVerbs(r), ShortNames: t.ShortNames, Categories: t.Categories}
		for _, sub := range t.Subresources {
			rd.Subresources = append(rd.Subresources, subresourceDiscovery{Subresource: sub,
				ResponseKind: subresourceKind(kind, sub), Verbs: subresourceVerb[sub]})
		}
		sort.Slice(rd.Subresources, func(i, j int) bool { return rd.Subresources[i].Subresource < rd.Subresources[j].Subresource })
		out = append(out, rd)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return versionDiscovery{Version: gv.Version, Resources: out, Freshness: "Current"}
}

// subresourceKind is the kind a subresource answers with, as
// kube-apiserver lists it.
func subresourceKind(parent *groupVersionKind, sub string) *groupVersionKind {
	switch sub {
	case "scale":
		return &groupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	case "eviction":
		return &groupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}
	case "binding":
		return &groupVersionKind{Version: "v1", Kind: "Binding"}
	case "exec":
		return &groupVersionKind{Version: "v1", Kind: "PodExecOptions"}
	case "attach":
		return &groupVersionKind{Version: "v1", Kind: "PodAttachOptions"}
	case "portforward":
		return &groupVersionKind{Version: "v1", Kind: "PodPortForwardOptions"}
	}
	k := *parent
	return &k
}

package apiserver

import (
	"net/http"
	"net/url"
	"strings"
)

// RequestInfo is what the server reads from a request's method and path
// before it authorizes it: the verb and, for resource requests, which
// resource, namespace, name and subresource.
type RequestInfo struct {
	// IsResourceRequest is false for /healthz, /version, /api, /apis, ...
	IsResourceRequest bool
	// Path is the URL path.
	Path string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete, deletecollection for resources; the lower-case HTTP method
	// otherwise.
	Verb string
	// APIPrefix is "api" or "apis".
	APIPrefix   string
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the version.
	Parts []string
}

// ParseRequestInfo reads r's method, path and query as Kubernetes does:
// /api/v1/namespaces/{ns}/{resource}/{name}/{subresource} and
// /apis/{group}/{version}/..., with ?watch=true (or the legacy /watch/
// prefix) turning get/list into watch.
func ParseRequestInfo(r *http.Request) *RequestInfo {
	info := &RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) < 2 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 2 {
			return info // /apis/{group}: discovery
		}
		info.APIGroup, parts = parts[0], parts[1:]
	}
	info.APIVersion, parts = parts[0], parts[1:]
	if len(parts) == 0 {
		return info // /api/v1: discovery
	}
	info.IsResourceRequest = true
	watchPrefix := false
	if parts[0] == "watch" {
		watchPrefix, parts = true, parts[1:]
	}
	nsSubresource := len(parts) == 3 && parts[0] == "namespaces" && (parts[2] == "status" || parts[2] == "finalize")
	if len(parts) >= 3 && parts[0] == "namespaces" && !nsSubresource {
		info.Namespace, parts = parts[1], parts[2:]
	} else if len(parts) >= 2 && parts[0] == "namespaces" {
		info.Namespace = parts[1] // the namespace object itself
	}
	info.Parts = parts
	if len(parts) > 0 {
		info.Resource = parts[0]
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	info.Verb = resourceVerb(r.Method, info.Name != "", watchPrefix || isWatch(r.URL.Query()))
	return info
}

// LongRunning reports whether the request may stay open indefinitely: a
// watch, or a stream (the attach, exec, log, portforward and proxy
// subresources), as kube-apiserver's long-running check counts them.
// Such requests take no seat of the server's priority levels, so a
// followed log or an open exec session does not starve short requests.
func (info *RequestInfo) LongRunning() bool {
	if info.Verb == "watch" || info.Verb == "proxy" {
		return true
	}
	switch info.Subresource {
	case "attach", "exec", "log", "portforward", "proxy":
		return true
	}
	return false
}

func resourceVerb(method string, named, watch bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watch:
			return "watch"
		case named:
			return "get"
		default:
			return "list"
		}
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	}
	return strings.ToLower(method)
}

func isWatch(q url.Values) bool {
	v := q.Get("watch")
	return v == "1" || v == "true"
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

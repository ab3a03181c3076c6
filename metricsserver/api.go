package metricsserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/metrics"
)

const prefix = "/apis/" + metrics.GroupName + "/" + metrics.Version

// resourceList is the discovery document of metrics.k8s.io/v1beta1.
var resourceList = map[string]any{
	"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": metrics.GroupVersion().String(),
	"resources": []map[string]any{
		{"name": "nodes", "singularName": "", "namespaced": false, "kind": "NodeMetrics", "verbs": []string{"get", "list"}},
		{"name": "pods", "singularName": "", "namespaced": true, "kind": "PodMetrics", "verbs": []string{"get", "list"}},
	},
}

// ServeHTTP answers the Metrics API: GET /apis/metrics.k8s.io/v1beta1
// (discovery), .../nodes[/<name>], .../pods, .../namespaces/<ns>/pods[/<name>],
// lists filtered by ?labelSelector=. The caller has been authenticated
// and authorized by the API server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the server does not allow this method on the requested resource")
		return
	}
	rest, ok := strings.CutPrefix(strings.TrimSuffix(r.URL.Path, "/"), prefix)
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("unable to parse labelSelector: %v", err))
		return
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	snap := s.snap.Load()
	switch {
	case rest == "":
		writeJSON(w, http.StatusOK, resourceList)
	case parts[0] == "nodes" && len(parts) <= 2:
		serveObjects(w, parts, snap.nodes, "", sel, "nodes", "NodeMetricsList")
	case parts[0] == "pods" && len(parts) == 1:
		serveObjects(w, parts, snap.pods, "", sel, "pods", "PodMetricsList")
	case parts[0] == "namespaces" && len(parts) >= 3 && len(parts) <= 4 && parts[2] == "pods":
		serveObjects(w, parts[2:], snap.pods, parts[1]+"/", sel, "pods", "PodMetricsList")
	default:
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

// serveObjects answers a get (parts has a name) or a list of the objects
// whose key starts with keyPrefix.
func serveObjects[T interface{ GetObjectMeta() *meta.ObjectMeta }](w http.ResponseWriter, parts []string, objs map[string]T, keyPrefix string, sel labels.Selector, resource, listKind string) {
	if len(parts) == 2 {
		o, ok := objs[keyPrefix+parts[1]]
		if !ok {
			writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("%s.%s %q not found", resource, metrics.GroupName, parts[1]))
			return
		}
		writeJSON(w, http.StatusOK, o)
		return
	}
	keys := make([]string, 0, len(objs))
	for k, o := range objs {
		if strings.HasPrefix(k, keyPrefix) && sel.Matches(labels.Set(o.GetObjectMeta().Labels)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := make([]T, 0, len(keys))
	for _, k := range keys {
		items = append(items, objs[k])
	}
	writeJSON(w, http.StatusOK, map[string]any{"kind": listKind, "apiVersion": metrics.GroupVersion().String(),
		"metadata": map[string]any{}, "items": items})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// writeStatus answers with a meta.k8s.io Status, as the API server does.
func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

package apiserver

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// The media types of /openapi/v2, as kube-apiserver (kube-openapi) names
// them: JSON, and gnostic's OpenAPI v2 Document message, which client-go's
// discovery OpenAPISchema() asks for under the older name and gets under
// the newer one.
const (
	mediaOpenAPIProtoOld = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	mediaOpenAPIProto    = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// openAPIV2Cache keeps the protobuf encoding of the last OpenAPI v2
// document by its ETag: the JSON is rebuilt per request (resources come
// and go), the protobuf only when the JSON changed. Safe for concurrent
// use.
type openAPIV2Cache struct {
	mu       sync.Mutex
	etag     string
	modified time.Time
	proto    []byte
}

// get returns the protobuf form of doc (whose ETag is etag) and when that
// document was first served.
func (c *openAPIV2Cache) get(doc []byte, etag string) ([]byte, time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.etag == etag && c.proto != nil {
		return c.proto, c.modified, nil
	}
	parsed, err := openapiv2.ParseDocument(doc)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("parse OpenAPI v2 document: %w", err)
	}
	pb, err := proto.Marshal(parsed)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("encode OpenAPI v2 document: %w", err)
	}
	c.etag, c.proto, c.modified = etag, pb, time.Now()
	return pb, c.modified, nil
}

// modifiedAt returns when the document with etag was first served, now
// for a new one.
func (c *openAPIV2Cache) modifiedAt(etag string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.etag != etag {
		c.etag, c.proto, c.modified = etag, nil, time.Now()
	}
	return c.modified
}

// serveOpenAPIV2 serves /openapi/v2 as kube-apiserver does: one Swagger
// 2.0 document of every served kind (the schemas OpenAPI v3 serves, with
// #/definitions references), as JSON or as gnostic's protobuf by the
// Accept header (406 for neither), with `Vary: Accept`, an ETag (the
// SHA-512 of the JSON, the same for both forms) and Last-Modified, so
// If-None-Match and If-Modified-Since get 304.
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, apierrors.NewMethodNotSupported(meta.GroupResource{}, strings.ToLower(r.Method)))
		return
	}
	w.Header().Add("Vary", "Accept")
	media, ok := negotiateOpenAPIV2(r.Header.Get("Accept"))
	if !ok {
		writeError(w, apierrors.NewNotAcceptable("only application/json and "+mediaOpenAPIProto+" are served"))
		return
	}
	doc, err := json.Marshal(s.openAPIV2Doc())
	if err != nil {
		writeError(w, apierrors.NewInternalError(fmt.Errorf("encode the OpenAPI v2 document: %w", err)))
		return
	}
	sum := sha512.Sum512(doc)
	etag := strings.ToUpper(hex.EncodeToString(sum[:]))
	body, modified := doc, s.openAPIV2.modifiedAt(etag)
	if media == mediaOpenAPIProto {
		if body, modified, err = s.openAPIV2.get(doc, etag); err != nil {
			s.log.Error("apiserver: OpenAPI v2 protobuf", "err", err)
			writeError(w, apierrors.NewInternalError(fmt.Errorf("the OpenAPI v2 document could not be encoded")))
			return
		}
	}
	w.Header().Set("Content-Type", media)
	w.Header().Set("Etag", strconv.Quote(etag))
	http.ServeContent(w, r, "/openapi/v2", modified, bytes.NewReader(body))
}

// negotiateOpenAPIV2 picks the media type of the first Accept clause that
// names JSON or the protobuf (either name), or a wildcard (JSON).
func negotiateOpenAPIV2(accept string) (string, bool) {
	if strings.TrimSpace(accept) == "" {
		return "application/json", true
	}
	for _, clause := range strings.Split(accept, ",") {
		// Not mime.ParseMediaType: "@" in the protobuf's older name is
		// no token character, and kube-openapi accepts it.
		mt, params, _ := strings.Cut(clause, ";")
		if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok && strings.Trim(strings.TrimSpace(q), "0.") == "" {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/json", "application/*", "*/*":
			return "application/json", true
		case mediaOpenAPIProtoOld, mediaOpenAPIProto:
			return mediaOpenAPIProto, true
		}
	}
	return "", false
}

// openAPIV2Doc builds the Swagger 2.0 document: every served resource's
// schemas (from the same generator as OpenAPI v3) as definitions, and
// per resource a path with get, put and patch declaring the query
// parameters kubectl looks for.
func (s *Server) openAPIV2Doc() map[string]any {
	s.mu.RLock()
	rs := make([]*served, 0, len(s.resources))
	for _, r := range s.resources {
		rs = append(rs, r)
	}
	s.mu.RUnlock()
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i].Type.GroupVersionResource(), rs[j].Type.GroupVersionResource()
		return a.String() < b.String()
	})
	g := newSchemaGen()
	paths := map[string]any{}
	for _, r := range rs {
		name := g.resourceSchema(r, true)
		if r.OpenAPI != nil { // a custom resource: what Swagger 2.0 can say of its schema
			g.schemas[name] = customSchemaV2(g.schemas[name])
		}
		path, op := openAPIV2Path(r, name)
		paths[path] = op
	}
	defs := make(map[string]any, len(g.schemas))
	for name, sch := range g.schemas {
		defs[name] = swagger2Schema(sch)
	}
	return map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": Version.GitVersion},
		"paths":       paths,
		"definitions": defs,
	}
}

// openAPIV2Path returns the path of one object of r and its operations.
func openAPIV2Path(r *served, schema string) (string, map[string]any) {
	t := r.Type
	gv := t.Kind.GroupVersion()
	path := "/" + prefixOf(gv) + "/" + t.Resource + "/{name}"
	params := []map[string]any{{"name": "name", "in": "path", "required": true, "type": "string", "uniqueItems": true}}
	if t.Namespaced {
		path = "/" + prefixOf(gv) + "/namespaces/{namespace}/" + t.Resource + "/{name}"
		params = append(params, map[string]any{"name": "namespace", "in": "path", "required": true, "type": "string", "uniqueItems": true})
	}
	for _, q := range []string{"fieldValidation", "dryRun", "fieldManager"} {
		params = append(params, map[string]any{"name": q, "in": "query", "type": "string", "uniqueItems": true})
	}
	gvk := map[string]string{"group": t.Kind.Group, "version": t.Kind.Version, "kind": t.Kind.Kind}
	op := func(id string) map[string]any {
		return map[string]any{
			"operationId": id + strings.ReplaceAll(prefixOf(gv), "/", "_") + t.Kind.Kind,
			"consumes":    []string{"application/json"}, "produces": []string{"application/json"},
			"schemes":    []string{"https"},
			"parameters": params, "x-kubernetes-group-version-kind": gvk, "x-kubernetes-action": id,
			"responses": map[string]any{"200": map[string]any{"description": "OK", "schema": map[string]any{"$ref": "#/definitions/" + schema}}},
		}
	}
	return path, map[string]any{"get": op("get"), "put": op("put"), "patch": op("patch")}
}

// swagger2Keys are the members a Swagger 2.0 Schema Object may have
// (besides x- extensions); OpenAPI 3's others (anyOf, oneOf, not,
// nullable) are dropped, as kube-apiserver drops them from v2.
var swagger2Keys = map[string]bool{
	"$ref": true, "format": true, "title": true, "description": true, "default": true, "multipleOf": true,
	"maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true, "maxLength": true,
	"minLength": true, "pattern": true, "maxItems": true, "minItems": true, "uniqueItems": true,
	"maxProperties": true, "minProperties": true, "required": true, "enum": true, "additionalProperties": true,
	"type": true, "items": true, "allOf": true, "properties": true, "discriminator": true, "readOnly": true,
	"example": true,
}

// swagger2Schema turns an OpenAPI v3 schema of the generator into a
// Swagger 2.0 one: references point into #/definitions, a described
// reference (allOf of one $ref) is a $ref with a description beside it,
// int-or-string is {"type":"string","format":"int-or-string"}, and
// members Swagger 2.0 does not have are dropped.
func swagger2Schema(v any) any {
	sch, ok := v.(map[string]any)
	if !ok {
		if m, ok := v.(map[string]string); ok {
			sch = make(map[string]any, len(m))
			for k, x := range m {
				sch[k] = x
			}
		} else {
			return v
		}
	}
	out := map[string]any{}
	if b, _ := sch["x-kubernetes-int-or-string"].(bool); b {
		out["type"], out["format"] = "string", "int-or-string"
		if d, ok := sch["description"]; ok {
			out["description"] = d
		}
		return out
	}
	if all, ok := sch["allOf"].([]any); ok && len(all) == 1 {
		if ref, ok := all[0].(map[string]any); ok && len(ref) == 1 && ref["$ref"] != nil {
			out["$ref"] = swagger2Ref(ref["$ref"])
			if d, ok := sch["description"]; ok {
				out["description"] = d
			}
			return out
		}
	}
	for k, x := range sch {
		switch {
		case k == "$ref":
			out[k] = swagger2Ref(x)
		case k == "properties":
			props := map[string]any{}
			for name, p := range asMap(x) {
				props[name] = swagger2Schema(p)
			}
			out[k] = props
		case k == "items" || k == "additionalProperties":
			if b, ok := x.(bool); ok {
				out[k] = b
			} else {
				out[k] = swagger2Schema(x)
			}
		case k == "allOf":
			var list []any
			for _, e := range asList(x) {
				list = append(list, swagger2Schema(e))
			}
			out[k] = list
		case strings.HasPrefix(k, "x-") || swagger2Keys[k]:
			out[k] = x
		}
	}
	return out
}

func swagger2Ref(v any) any {
	if s, ok := v.(string); ok {
		return strings.Replace(s, "#/components/schemas/", "#/definitions/", 1)
	}
	return v
}

// asMap returns v as a map of schemas, whichever map type the generator
// used.
func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case map[string]map[string]any:
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		return out
	}
	return nil
}

// asList returns v as a list, whichever slice type the generator used.
func asList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []map[string]any:
		out := make([]any, len(l))
		for i, x := range l {
			out[i] = x
		}
		return out
	}
	return nil
}

package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"sort"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

//go:generate go run ../internal/apidocs/cmd/genapidocs

// serveOpenAPI serves OpenAPI v3: /openapi/v3 lists one document per
// group version, and each document has the schemas of its kinds (built by
// reflection from the Go types, so user-defined kinds get one too) and a
// PATCH operation per resource declaring the fieldValidation parameter —
// which is how kubectl decides to leave validation to the server. kubectl
// explain reads the schemas.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	docs := s.openAPIDocs()
	if p == "/openapi/v3" {
		paths := map[string]any{}
		for name, b := range docs {
			sum := sha256.Sum256(b)
			paths[name] = map[string]string{"serverRelativeURL": "/openapi/v3/" + name + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:8]))}
		}
		writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
		return
	}
	if b, ok := docs[strings.TrimPrefix(p, "/openapi/v3/")]; ok {
		writeRaw(w, http.StatusOK, b)
		return
	}
	writeError(w, apierrors.NewNotFound(meta.GroupResource{}, p))
}

// openAPIDocs builds the document of every served group version, keyed
// "api/v1" or "apis/<group>/<version>".
func (s *Server) openAPIDocs() map[string][]byte {
	s.mu.RLock()
	byGV := map[meta.GroupVersion][]*served{}
	for gvr, r := range s.resources {
		byGV[gvr.GroupVersion()] = append(byGV[gvr.GroupVersion()], r)
	}
	s.mu.RUnlock()
	out := map[string][]byte{}
	for gv, rs := range byGV {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Type.Resource < rs[j].Type.Resource })
		g := newSchemaGen()
		paths := map[string]any{}
		for _, r := range rs {
			t := r.Type
			name := g.resourceSchema(r, false)
			gvk := map[string]string{"group": t.Kind.Group, "version": t.Kind.Version, "kind": t.Kind.Kind}
			path := "/" + prefixOf(gv) + "/" + t.Resource + "/{name}"
			if t.Namespaced {
				path = "/" + prefixOf(gv) + "/namespaces/{namespace}/" + t.Resource + "/{name}"
			}
			params := []map[string]any{
				{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}, "uniqueItems": true},
				{"name": "dryRun", "in": "query", "schema": map[string]string{"type": "string"}, "uniqueItems": true},
				{"name": "fieldManager", "in": "query", "schema": map[string]string{"type": "string"}, "uniqueItems": true},
			}
			ref := map[string]any{"$ref": "#/components/schemas/" + name}
			op := func(id string) map[string]any {
				return map[string]any{
					"operationId": id + t.Kind.Kind, "parameters": params,
					"x-kubernetes-group-version-kind": gvk, "x-kubernetes-action": id,
					"responses": map[string]any{"200": map[string]any{"description": "OK", "content": map[string]any{"application/json": map[string]any{"schema": ref}}}},
				}
			}
			paths[path] = map[string]any{"patch": op("patch"), "put": op("replace"), "get": op("read")}
		}
		doc := map[string]any{
			"openapi":    "3.0.0",
			"info":       map[string]string{"title": "Kubernetes", "version": Version.GitVersion},
			"paths":      paths,
			"components": map[string]any{"schemas": g.schemas},
		}
		b, _ := json.Marshal(doc)
		out[prefixOf(gv)] = b
	}
	return out
}

// resourceSchema adds the schemas of r's kind to g (its Go type's, or
// Resource.OpenAPI's) and returns the name of the kind's own, which
// carries x-kubernetes-group-version-kind: r's kind alone, or with
// appendGVK every kind served with that schema (one document for every
// group version, OpenAPI v2).
func (g *schemaGen) resourceSchema(r *served, appendGVK bool) string {
	t := r.Type
	if r.OpenAPI != nil {
		schemas, name := r.OpenAPI()
		maps.Copy(g.schemas, schemas)
		g.ref(reflect.TypeOf(meta.ObjectMeta{})) // what the custom schemas refer to
		g.ref(reflect.TypeOf(meta.ListMeta{}))
		return name
	}
	name := g.ref(reflect.TypeOf(t.New()).Elem())
	gvk := map[string]string{"group": t.Kind.Group, "version": t.Kind.Version, "kind": t.Kind.Kind}
	gvks, _ := g.schemas[name]["x-kubernetes-group-version-kind"].([]map[string]string)
	if !appendGVK {
		gvks = nil
	}
	g.schemas[name]["x-kubernetes-group-version-kind"] = append(gvks, gvk)
	return name
}

func prefixOf(gv meta.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// schemaGen turns Go types into OpenAPI schemas, one named schema per
// struct type, following the json tags.
type schemaGen struct {
	schemas map[string]map[string]any
}

func newSchemaGen() *schemaGen { return &schemaGen{schemas: map[string]map[string]any{}} }

var (
	timeType      = reflect.TypeOf(meta.Time{})
	microTimeType = reflect.TypeOf(meta.MicroTime{})
	intOrString   = reflect.TypeOf(meta.IntOrString{})
	rawJSONType   = reflect.TypeOf(json.RawMessage{})
)

// schemaName names a struct type as Kubernetes' OpenAPI does where it can
// (io.k8s.api.core.v1.Pod, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta).
func schemaName(t reflect.Type) string {
	pkg := t.PkgPath()
	const base = "github.com/orkit/orkit/api/"
	switch {
	case pkg == base+"meta":
		return "io.k8s.apimachinery.pkg.apis.meta.v1." + t.Name()
	case pkg == base+"resource":
		return "io.k8s.apimachinery.pkg.api.resource." + t.Name()
	case strings.HasPrefix(pkg, base):
		grp := strings.TrimPrefix(pkg, base)
		if grp == "admissionregistration" {
			return "io.k8s.api.admissionregistration.v1alpha1." + t.Name()
		}
		return "io.k8s.api." + grp + ".v1." + t.Name()
	}
	return strings.ReplaceAll(pkg, "/", ".") + "." + t.Name()
}

// ref returns the schema name of struct type t, generating it once.
func (g *schemaGen) ref(t reflect.Type) string {
	name := schemaName(t)
	if _, ok := g.schemas[name]; ok {
		return name
	}
	sch := map[string]any{"type": "object"}
	if doc := typeDocs[t.PkgPath()+"."+t.Name()][""]; doc != "" {
		sch["description"] = doc
	}
	g.schemas[name] = sch
	props := map[string]any{}
	g.addFields(t, props)
	sch["properties"] = props
	return name
}

func (g *schemaGen) addFields(t reflect.Type, props map[string]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.addFields(ft, props)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		props[name] = describe(g.schema(f.Type), typeDocs[t.PkgPath()+"."+t.Name()][name])
	}
}

// describe adds a field's description to its schema. Beside a $ref it
// goes in an allOf wrapper, as Kubernetes' own documents write it
// (OpenAPI 3.0 ignores the siblings of a $ref); kubectl explain prints it.
func describe(sch map[string]any, doc string) map[string]any {
	if doc == "" {
		return sch
	}
	if _, ok := sch["$ref"]; ok {
		return map[string]any{"allOf": []any{sch}, "description": doc}
	}
	sch["description"] = doc
	return sch
}

// schema returns the schema of any type: a $ref for structs.
func (g *schemaGen) schema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType || t == microTimeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == intOrString:
		return map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []map[string]string{{"type": "integer"}, {"type": "string"}}}
	case t == rawJSONType:
		return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	case t.PkgPath() == "github.com/orkit/orkit/api/resource" && t.Name() == "Quantity":
		return map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []map[string]string{{"type": "integer"}, {"type": "string"}}}
	}
	switch t.Kind() {
	case reflect.Struct:
		return map[string]any{"$ref": "#/components/schemas/" + g.ref(t)}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "format": "byte"}
		}
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint16, reflect.Uint32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int64, reflect.Uint64, reflect.Uint:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	}
	return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
}

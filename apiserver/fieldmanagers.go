package apiserver

import (
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	apischema "github.com/orkit/orkit/api/apiextensions/schema"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
)

// FieldSchemaProvider is an optional ability of a resource's Strategy:
// objects described by a schema rather than by their Go type (custom
// resources) have their ownership recorded and their applies merged from
// FieldSchema, an OpenAPI v3 schema with Kubernetes' list and map
// extensions (see fieldmanager.NewTypeConverter). A new root (a changed
// CRD) is compiled again; the same root is reused. Without it, the kind's
// Go type is described by fieldmanager.SchemaOf.
type FieldSchemaProvider interface {
	FieldSchema() (root *apischema.JSONSchemaProps, defs map[string]*apischema.JSONSchemaProps)
}

// fieldManagers holds one FieldManager per kind, subresource and schema,
// built on first use. Safe for concurrent use.
type fieldManagers struct {
	mu sync.Mutex
	m  map[fieldManagerKey]*fieldManagerEntry
}

type fieldManagerKey struct {
	gvk         meta.GroupVersionKind
	subresource string
}

type fieldManagerEntry struct {
	root *apischema.JSONSchemaProps // the provider's schema it was built from, or nil
	fm   *fieldmanager.FieldManager
	err  error
}

// forResource returns the FieldManager of res's kind for writes through
// subresource ("" or "status").
func (f *fieldManagers) forResource(res *served, subresource string) (*fieldmanager.FieldManager, error) {
	key := fieldManagerKey{gvk: res.Type.Kind, subresource: subresource}
	typ := reflect.TypeOf(res.Type.New()).Elem()
	var root *apischema.JSONSchemaProps
	var defs map[string]*apischema.JSONSchemaProps
	provider, hasSchema := res.Strategy.(FieldSchemaProvider)
	if hasSchema {
		root, defs = provider.FieldSchema()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[fieldManagerKey]*fieldManagerEntry{}
	}
	if e, ok := f.m[key]; ok && e.root == root {
		return e.fm, e.err
	}
	e := &fieldManagerEntry{root: root}
	if !hasSchema {
		root, defs = fieldmanager.SchemaOf(typ)
	}
	tc, err := fieldmanager.NewTypeConverter(root, defs)
	if err == nil {
		e.fm, err = fieldmanager.New(fieldmanager.Config{
			TypeConverter: tc, APIVersion: res.Type.Kind.GroupVersion().String(),
			Subresource: subresource, ResetFields: resetFields(typ, root, subresource),
		})
	}
	e.err = err
	f.m[key] = e
	return e.fm, e.err
}

// resetFields are the fields a write through subresource cannot change,
// as the strategies reset them: a kind's status on the main resource, its
// spec and the metadata the status strategy keeps on the status
// subresource.
func resetFields(typ reflect.Type, schema *apischema.JSONSchemaProps, subresource string) []string {
	if subresource == "status" {
		return []string{"spec", "metadata.labels", "metadata.annotations", "metadata.finalizers", "metadata.ownerReferences"}
	}
	if schema != nil {
		if _, ok := schema.Properties["status"]; ok {
			return []string{"status"}
		}
		return nil
	}
	if f, ok := typ.FieldByName("Status"); ok && strings.HasPrefix(f.Tag.Get("json"), "status") {
		return []string{"status"}
	}
	return nil
}

// managerName is the manager a write is recorded under: the fieldManager
// parameter, else the client's User-Agent up to its first "/" (printable
// characters, at most 128 bytes), as kube-apiserver does.
func managerName(req *Request) string {
	if m := req.Query.Get("fieldManager"); m != "" {
		return m
	}
	ua, _, _ := strings.Cut(req.userAgent, "/")
	var b strings.Builder
	for _, r := range ua {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > 128 {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// validateFieldManager checks the fieldManager parameter as kube-apiserver
// does (at most 128 bytes of printable characters; required for apply),
// answering 422 about optionsKind.
func validateFieldManager(req *Request, optionsKind string, required bool) error {
	m, p := req.Query.Get("fieldManager"), field.NewPath("fieldManager")
	var errs field.ErrorList
	switch {
	case m == "" && required:
		errs = append(errs, field.Required(p, "is required for apply patch"))
	case len(m) > 128:
		errs = append(errs, field.TooLong(p, "", 128))
	default:
		for _, r := range m {
			if !unicode.IsPrint(r) {
				errs = append(errs, field.Invalid(p, m, "must only contain printable characters"))
				break
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(meta.GroupVersionKind{Group: "meta.k8s.io", Kind: optionsKind}, "", errs)
}

// trackUpdate records an ordinary write of next over cur (nil on create)
// in next's managedFields (operation Update). Ownership is bookkeeping:
// if it cannot be computed the write goes on with cur's managedFields,
// and the failure is logged.
func (s *Server) trackUpdate(req *Request, next, cur meta.Object) {
	if req.applying {
		return
	}
	nm := next.GetObjectMeta()
	var keep []meta.ManagedFieldsEntry
	if cur != nil {
		keep = cur.GetObjectMeta().ManagedFields
	}
	entries, err := s.updateManagedFields(req, next, cur)
	if err != nil {
		s.log.Debug("managedFields not updated", slog.String("resource", req.resource.Type.Resource), slog.String("name", nm.Name), slog.Any("error", err))
		nm.ManagedFields = keep
		return
	}
	nm.ManagedFields = entries
}

func (s *Server) updateManagedFields(req *Request, next, cur meta.Object) ([]meta.ManagedFieldsEntry, error) {
	fm, err := s.fieldManagers.forResource(req.resource, req.Info.Subresource)
	if err != nil {
		return nil, err
	}
	var live map[string]any
	if cur != nil {
		if live, err = toUnstructured(cur); err != nil {
			return nil, err
		}
	} else {
		empty := req.resource.Type.New()
		empty.GetTypeMeta().SetGroupVersionKind(req.resource.Type.Kind)
		if live, err = toUnstructured(empty); err != nil {
			return nil, err
		}
	}
	obj, err := toUnstructured(next)
	if err != nil {
		return nil, err
	}
	return fm.Update(live, obj, managerName(req))
}

// decodeUnstructured decodes a JSON object with int64 numbers.
func decodeUnstructured(b []byte) (map[string]any, error) {
	v, err := apischema.DecodeJSON(b)
	if err != nil {
		return nil, err
	}
	return asObject(v)
}

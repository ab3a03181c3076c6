package apiserver

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/orkit/orkit/api/apiextensions"
	"github.com/orkit/orkit/api/apiextensions/schema"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/jsonpath"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/patch"
)

// customResources returns the Resources that serve crd: one per served
// version, under the names crd has been granted (status.acceptedNames),
// every one storing objects as the storage version. It fails when a
// version's schema or printer columns do not compile (validation refuses
// such CRDs, so this means a CRD stored by something else).
func customResources(crd *apiextensions.CustomResourceDefinition) ([]Resource, error) {
	names := crd.Status.AcceptedNames
	storage := meta.GroupVersionKind{Group: crd.Spec.Group, Version: crd.StorageVersion(), Kind: names.Kind}
	var out []Resource
	for i := range crd.Spec.Versions {
		ver := &crd.Spec.Versions[i]
		if !ver.Served {
			continue
		}
		res, err := customResource(crd, ver)
		if err != nil {
			return nil, fmt.Errorf("customresourcedefinition %q version %q: %w", crd.Name, ver.Name, err)
		}
		if storage.Version != "" && storage.Version != ver.Name {
			sk := storage
			res.StoredAs = &sk
		}
		out = append(out, res)
	}
	return out, nil
}

// customResource builds the Resource of one served version.
func customResource(crd *apiextensions.CustomResourceDefinition, ver *apiextensions.CustomResourceDefinitionVersion) (Resource, error) {
	names := crd.Status.AcceptedNames
	v := &customVersion{
		kind:       meta.GroupVersionKind{Group: crd.Spec.Group, Version: ver.Name, Kind: names.Kind},
		namespaced: crd.Spec.Scope == apiextensions.NamespaceScoped,
	}
	var props *schema.JSONSchemaProps
	if ver.Schema != nil {
		props = ver.Schema.OpenAPIV3Schema
	}
	v.props, v.defs = fieldSchema(props)
	var err error
	if v.schema, err = schema.Compile(props, nil); err != nil {
		return Resource{}, err
	}
	if v.columns, err = apiextensions.NewPrinterColumns(ver); err != nil {
		return Resource{}, err
	}
	var subs []string
	if sr := ver.Subresources; sr != nil {
		if sr.Status != nil {
			v.status = true
			subs = append(subs, "status")
		}
		if sr.Scale != nil {
			v.scale = sr.Scale
			subs = append(subs, "scale")
		}
	}
	t := &scheme.Type{
		Kind: v.kind, Resource: names.Plural, Singular: names.Singular, Namespaced: v.namespaced,
		ShortNames: names.ShortNames, Categories: names.Categories, Subresources: subs, ListKindName: names.ListKind,
		New:     func() meta.Object { return &CustomObject{prune: v.pruneBody} },
		NewList: func() meta.ListObject { return &meta.List[CustomObject]{} },
		Default: v.defaultObject,
	}
	res := Resource{Type: t, Strategy: customStrategy{v: v}, Table: v.table(), Warning: deprecationWarning(crd, ver)}
	if v.schema.HasDefaults() {
		res.OnRead = v.defaultStored
	}
	if v.scale != nil {
		res.Scale = v.scaleAccessor()
	}
	if len(ver.SelectableFields) > 0 {
		if res.Fields, err = customFields(ver.SelectableFields); err != nil {
			return Resource{}, err
		}
	}
	kind := schema.OpenAPIKind{Group: crd.Spec.Group, Version: ver.Name, Kind: names.Kind, ListKind: names.ListKind}
	res.OpenAPI = func() (map[string]map[string]any, string) {
		schemas, err := schema.OpenAPI(props, kind)
		if err != nil {
			return nil, ""
		}
		return schemas, kind.SchemaName()
	}
	return res, nil
}

// table shows Name and the version's printer columns (Age when it
// declares none), as kube-apiserver's table convertor for custom
// resources does.
func (v *customVersion) table() *TableConvertor {
	cols := []TableColumn{nameColumn}
	for _, c := range v.columns.Columns {
		cols = append(cols, TableColumn{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority})
	}
	return &TableConvertor{
		Columns:    cols,
		NoDefaults: true,
		Cells: func(obj meta.Object) []any {
			o := obj.(*CustomObject)
			now := time.Now()
			age := func(t time.Time) string { return HumanDuration(now.Sub(t)) }
			return append([]any{o.Name}, v.columns.Cells(o.Object(), age)...)
		},
	}
}

// scaleAccessor reads and writes the replicas at the version's scale
// paths.
func (v *customVersion) scaleAccessor() *ScaleAccessor {
	return &ScaleAccessor{
		Get: func(obj meta.Object) (int32, int32, string) {
			sc := apiextensions.ScaleOf(obj.(*CustomObject).Content, v.scale)
			return sc.SpecReplicas, sc.StatusReplicas, sc.Selector
		},
		Set: func(obj meta.Object, n int32) {
			o := obj.(*CustomObject)
			if o.Content == nil {
				o.Content = map[string]any{}
			}
			_ = apiextensions.SetSpecReplicas(o.Content, v.scale, n) // a non-object on the way fails validation
		},
	}
}

// deprecationWarning is the warning every request to a deprecated version
// gets, as kube-apiserver words it: the version's deprecationWarning, or
// "<group>/<version> <Kind> is deprecated; use <group>/<version> <Kind>"
// naming the preferred served version that is not deprecated.
func deprecationWarning(crd *apiextensions.CustomResourceDefinition, ver *apiextensions.CustomResourceDefinitionVersion) string {
	if !ver.Deprecated {
		return ""
	}
	if ver.DeprecationWarning != nil {
		return *ver.DeprecationWarning
	}
	kind := crd.Spec.Names.Kind
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, ver.Name, kind)
	preferred := ""
	for _, v := range crd.Spec.Versions {
		if v.Served && !v.Deprecated && (preferred == "" || versionLess(preferred, v.Name)) {
			preferred = v.Name
		}
	}
	if preferred != "" {
		msg += fmt.Sprintf("; use %s/%s %s", crd.Spec.Group, preferred, kind)
	}
	return msg
}

// refuseStrategicMerge answers a strategic merge patch of a custom
// resource (or its status) with 415, as kube-apiserver does: custom
// resources have no patch strategies.
func refuseStrategicMerge(r *http.Request, req *Request) error {
	if req.Info.Verb != "patch" || (req.Info.Subresource != "" && req.Info.Subresource != "status") {
		return nil
	}
	if _, custom := req.resource.Strategy.(customStrategy); !custom {
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != string(patch.StrategicMerge) {
		return nil
	}
	st := apierrors.NewUnsupportedMediaType(string(patch.StrategicMerge))
	st.Message = "the body of the request was in an unknown format - accepted media types include: " +
		"application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
	return st
}

// customFields returns the Fields of a version's selectableFields: the
// label of ".spec.color" is "spec.color", its value the field's string,
// integer or boolean value printed ("" when unset), as kube-apiserver
// selects custom resources.
func customFields(sf []apiextensions.SelectableField) (FieldsFunc, error) {
	type selectable struct {
		label string
		path  *jsonpath.Path
	}
	var list []selectable
	for _, f := range sf {
		p, err := jsonpath.Parse(f.JSONPath)
		if err != nil {
			return nil, fmt.Errorf("selectable field %q: %w", f.JSONPath, err)
		}
		list = append(list, selectable{label: strings.TrimPrefix(f.JSONPath, "."), path: p})
	}
	return func(obj meta.Object) fields.Set {
		o := obj.(*CustomObject)
		m := map[string]any(o.Content)
		set := fields.Set{"metadata.name": o.Name}
		if o.Namespace != "" {
			set["metadata.namespace"] = o.Namespace
		}
		for _, f := range list {
			set[f.label] = ""
			if found := f.path.Find(m); len(found) > 0 {
				switch v := found[0].(type) {
				case string:
					set[f.label] = v
				case int64:
					set[f.label] = strconv.FormatInt(v, 10)
				case bool:
					set[f.label] = strconv.FormatBool(v)
				}
			}
		}
		return set
	}, nil
}

package apiextensions

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// MaxSchemaBytes is the largest openAPIV3Schema (serialised) a version
// may carry: what fits in one API request. Larger schemas are refused
// before any other schema check runs.
const MaxSchemaBytes = 3 * 1024 * 1024

var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// ValidateCustomResourceDefinition checks a new CRD as kube-apiserver does
// for apiextensions.k8s.io/v1: the name (<plural>.<group>), group, scope,
// names, versions (exactly one storage version, unique DNS-1035 names,
// deprecation warnings), every version's schema (see schema.Check:
// structural, no $ref, CEL rules within cost limits, ...), subresources,
// printer columns, selectable fields, conversion, the API approval
// annotation of protected groups, and the status. Errors are worded as
// Kubernetes words them.
func ValidateCustomResourceDefinition(crd *CustomResourceDefinition) field.ErrorList {
	nameFn := func(name string, prefix bool) []string {
		msgs := validation.NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			msgs = append(msgs, `must be spec.names.plural+"."+spec.group`)
		}
		return msgs
	}
	errs := validation.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn, field.NewPath("metadata"))
	errs = append(errs, validateSpec(&crd.Spec, field.NewPath("spec"))...)
	errs = append(errs, validateStatus(&crd.Status, field.NewPath("status"))...)
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	errs = append(errs, validateAPIApproval(crd)...)
	if crd.Spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(field.NewPath("spec", "preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return errs
}

// ValidateCustomResourceDefinitionUpdate checks crd as the replacement of
// old: as ValidateCustomResourceDefinition, and the group and plural
// never change, the scope and kind not once the CRD is established.
func ValidateCustomResourceDefinitionUpdate(crd, old *CustomResourceDefinition) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSpec(&crd.Spec, field.NewPath("spec"))...)
	sp := field.NewPath("spec")
	if old.IsConditionTrue(Established) {
		errs = append(errs, validation.ValidateImmutableField(string(crd.Spec.Scope), string(old.Spec.Scope), sp.Child("scope"))...)
		errs = append(errs, validation.ValidateImmutableField(crd.Spec.Names.Kind, old.Spec.Names.Kind, sp.Child("names", "kind"))...)
	}
	errs = append(errs, validation.ValidateImmutableField(crd.Spec.Group, old.Spec.Group, sp.Child("group"))...)
	errs = append(errs, validation.ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, sp.Child("names", "plural"))...)
	errs = append(errs, validateStatus(&crd.Status, field.NewPath("status"))...)
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	if !old.Spec.PreserveUnknownFields && crd.Spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(sp.Child("preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return errs
}

// ValidateCustomResourceDefinitionStatusUpdate checks an update of the
// status subresource.
func ValidateCustomResourceDefinitionStatusUpdate(crd, old *CustomResourceDefinition) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateStatus(&crd.Status, field.NewPath("status"))...)
}

func validateSpec(spec *CustomResourceDefinitionSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case spec.Group == "":
		errs = append(errs, field.Required(p.Child("group"), ""))
	case len(validation.IsDNS1123Subdomain(spec.Group)) > 0:
		errs = append(errs, field.Invalid(p.Child("group"), spec.Group, strings.Join(validation.IsDNS1123Subdomain(spec.Group), ",")))
	case !strings.Contains(spec.Group, "."):
		errs = append(errs, field.Invalid(p.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	switch spec.Scope {
	case "":
		errs = append(errs, field.Required(p.Child("scope"), ""))
	case ClusterScoped, NamespaceScoped:
	default:
		errs = append(errs, field.NotSupported(p.Child("scope"), string(spec.Scope), []string{string(ClusterScoped), string(NamespaceScoped)}))
	}
	errs = append(errs, validateVersions(spec.Versions, p.Child("versions"))...)
	for _, f := range []struct{ v, name string }{{spec.Names.Plural, "plural"}, {spec.Names.Singular, "singular"}, {spec.Names.Kind, "kind"}, {spec.Names.ListKind, "listKind"}} {
		if f.v == "" {
			errs = append(errs, field.Required(p.Child("names", f.name), ""))
		}
	}
	errs = append(errs, validateNames(&spec.Names, p.Child("names"))...)
	return append(errs, validateConversion(spec.Conversion, p.Child("conversion"))...)
}

func validateVersions(versions []CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	storage := 0
	seen := map[string]bool{}
	unique := true
	for i := range versions {
		v := &versions[i]
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if msgs := validation.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Index(i).Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		errs = append(errs, validateVersion(v, p.Index(i))...)
	}
	if !unique {
		errs = append(errs, field.Invalid(p, versionsValue(versions), "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(p, versionsValue(versions), "must have exactly one version marked as storage version"))
	}
	return errs
}

// stringList prints a list of strings as Kubernetes prints it as a bad
// value (Go syntax).
type stringList []string

// String implements fmt.Stringer.
func (l stringList) String() string { return fmt.Sprintf("%#v", []string(l)) }

// versionsValue prints the versions as the bad value of an error: their
// names.
type versionsValue []CustomResourceDefinitionVersion

// String implements fmt.Stringer.
func (v versionsValue) String() string {
	names := make([]string, len(v))
	for i := range v {
		names[i] = v[i].Name
	}
	return "[" + strings.Join(names, " ") + "]"
}

func validateVersion(v *CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range deprecationWarning(v.Deprecated, v.DeprecationWarning) {
		errs = append(errs, field.Invalid(p.Child("deprecationWarning"), deref(v.DeprecationWarning), msg))
	}
	errs = append(errs, validateVersionSchema(v, p)...)
	errs = append(errs, validateSubresources(v.Subresources, p.Child("subresources"))...)
	for i := range v.AdditionalPrinterColumns {
		errs = append(errs, validateColumn(&v.AdditionalPrinterColumns[i], p.Child("additionalPrinterColumns").Index(i))...)
	}
	return append(errs, validateSelectableFields(v, p)...)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func deprecationWarning(deprecated bool, w *string) []string {
	if !deprecated && w != nil {
		return []string{"can only be set for deprecated versions"}
	}
	if w == nil {
		return nil
	}
	var msgs []string
	if len(*w) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if *w == "" {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, r := range *w {
		if !unicode.IsPrint(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(*w) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}

// validateVersionSchema requires a schema and checks it.
func validateVersionSchema(v *CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	sp := p.Child("schema", "openAPIV3Schema")
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return field.ErrorList{field.Required(sp, "schemas are required")}
	}
	if b, err := json.Marshal(v.Schema.OpenAPIV3Schema); err != nil {
		return field.ErrorList{field.Invalid(sp, "", err.Error())}
	} else if len(b) > MaxSchemaBytes {
		return field.ErrorList{field.TooLong(sp, "", MaxSchemaBytes)}
	}
	status := v.Subresources != nil && v.Subresources.Status != nil
	return schema.Check(v.Schema.OpenAPIV3Schema, sp, schema.CheckOptions{StatusSubresource: status})
}

func validateStatus(st *CustomResourceDefinitionStatus, p *field.Path) field.ErrorList {
	return validateNames(&st.AcceptedNames, p.Child("acceptedNames"))
}

func validateNames(n *CustomResourceDefinitionNames, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	label := func(v, name string) {
		if msgs := validation.IsDNS1035Label(v); v != "" && len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child(name), v, strings.Join(msgs, ",")))
		}
	}
	mixed := func(v, name string) {
		if msgs := validation.IsDNS1035Label(strings.ToLower(v)); v != "" && len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child(name), v, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
		}
	}
	label(n.Plural, "plural")
	label(n.Singular, "singular")
	mixed(n.Kind, "kind")
	mixed(n.ListKind, "listKind")
	for i, s := range n.ShortNames {
		if msgs := validation.IsDNS1035Label(s); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("shortNames").Index(i), s, strings.Join(msgs, ",")))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, field.Invalid(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range n.Categories {
		if msgs := validation.IsDNS1035Label(c); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("categories").Index(i), c, strings.Join(msgs, ",")))
		}
	}
	return errs
}

func validateStoredVersions(stored []string, versions []CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	if len(stored) == 0 {
		return field.ErrorList{field.Invalid(p, stringList(stored), "must have at least one stored version")}
	}
	var errs field.ErrorList
	left := map[string]int{}
	for i, v := range stored {
		left[v] = i
	}
	for _, v := range versions {
		_, ok := left[v.Name]
		if v.Storage && !ok {
			errs = append(errs, field.Invalid(p, stringList(stored), "must have the storage version "+v.Name))
		}
		delete(left, v.Name)
	}
	for i, v := range stored {
		if _, ok := left[v]; ok {
			errs = append(errs, field.Invalid(p.Index(i), v, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
		}
	}
	return errs
}

func validateColumn(c *CustomResourceColumnDefinition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	typeMsg := "must be one of " + strings.Join(printerColumnTypes, ",")
	switch {
	case c.Type == "":
		errs = append(errs, field.Required(p.Child("type"), typeMsg))
	case !contains(printerColumnTypes, c.Type):
		errs = append(errs, field.Invalid(p.Child("type"), c.Type, typeMsg))
	}
	if c.Format != "" && !contains(printerColumnFormats, c.Format) {
		errs = append(errs, field.Invalid(p.Child("format"), c.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	if c.JSONPath == "" {
		errs = append(errs, field.Required(p.Child("JSONPath"), ""))
	} else {
		errs = append(errs, simpleJSONPath(c.JSONPath, p.Child("JSONPath"))...)
	}
	return errs
}

func simpleJSONPath(s string, p *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(p, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(p, s, "must be a simple json path starting with .")}
	}
	return nil
}

func validateSubresources(sr *CustomResourceSubresources, p *field.Path) field.ErrorList {
	if sr == nil || sr.Scale == nil {
		return nil
	}
	var errs field.ErrorList
	sc := sr.Scale
	under := func(path, name string, prefixes ...string) {
		fp := p.Child("scale." + name)
		if path == "" {
			errs = append(errs, field.Required(fp, ""))
			return
		}
		if e := simpleJSONPath(path, fp); len(e) > 0 {
			errs = append(errs, e...)
			return
		}
		for _, pre := range prefixes {
			if strings.HasPrefix(path, pre) {
				return
			}
		}
		where := "under " + strings.TrimSuffix(prefixes[0], ".")
		if len(prefixes) > 1 {
			where = "under either .spec or .status"
		}
		errs = append(errs, field.Invalid(fp, path, "should be a json path "+where))
	}
	under(sc.SpecReplicasPath, "specReplicasPath", ".spec.")
	under(sc.StatusReplicasPath, "statusReplicasPath", ".status.")
	if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
		under(*sc.LabelSelectorPath, "labelSelectorPath", ".spec.", ".status.")
	}
	return errs
}

// maxSelectableFields is how many selectable fields a version may have.
const maxSelectableFields = 8

func validateSelectableFields(v *CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	if len(v.SelectableFields) == 0 {
		return nil
	}
	fp := p.Child("selectableFields")
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return field.ErrorList{field.Invalid(fp, "", "selectableFields may only be set when version.schema.openAPIV3Schema is not included")}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, sf := range v.SelectableFields {
		jp := fp.Index(i).Child("jsonPath")
		if sf.JSONPath == "" {
			errs = append(errs, field.Required(jp, ""))
			continue
		}
		typ, err := schema.FieldType(v.Schema.OpenAPIV3Schema, sf.JSONPath)
		if err != nil {
			errs = append(errs, field.Invalid(jp, sf.JSONPath, fmt.Sprintf("is an invalid path: %v", err)))
			continue
		}
		if strings.HasPrefix(sf.JSONPath, ".metadata") {
			errs = append(errs, field.Invalid(jp, sf.JSONPath, "must not point to fields in metadata"))
		}
		if typ != "string" && typ != "boolean" && typ != "integer" {
			errs = append(errs, field.Invalid(jp, sf.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if seen[sf.JSONPath] {
			errs = append(errs, field.Duplicate(jp, sf.JSONPath))
		}
		seen[sf.JSONPath] = true
	}
	if len(seen) > maxSelectableFields {
		errs = append(errs, field.TooMany(fp, len(seen), maxSelectableFields))
	}
	return errs
}

func validateConversion(c *CustomResourceConversion, p *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	sp := p.Child("strategy")
	switch c.Strategy {
	case "":
		return field.ErrorList{field.Required(sp, "")}
	case NoneConverter:
		if c.Webhook != nil {
			return field.ErrorList{field.Forbidden(p.Child("webhook"), "should not be set when strategy is not set to Webhook")}
		}
		return nil
	}
	return field.ErrorList{field.NotSupported(sp, string(c.Strategy), []string{string(NoneConverter)})}
}

// apiApprovalAnnotation marks a CRD of a protected group as approved.
const apiApprovalAnnotation = "api-approved.kubernetes.io"

// validateAPIApproval requires the approval annotation on CRDs of the
// groups Kubernetes protects (k8s.io, kubernetes.io and their
// subdomains).
func validateAPIApproval(crd *CustomResourceDefinition) field.ErrorList {
	g := crd.Spec.Group
	protected := g == "k8s.io" || g == "kubernetes.io" || strings.HasSuffix(g, ".k8s.io") || strings.HasSuffix(g, ".kubernetes.io")
	if !protected {
		return nil
	}
	if _, ok := crd.Annotations[apiApprovalAnnotation]; ok {
		return nil
	}
	return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(apiApprovalAnnotation),
		fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", apiApprovalAnnotation))}
}

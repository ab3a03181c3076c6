package schema

import (
	"context"
	"fmt"
	"sort"

	"github.com/orkit/orkit/api/field"
)

// Config tunes Compile. The zero value (or a nil *Config) means Kubernetes'
// limits.
type Config struct {
	// PerCallLimit is the runtime cost one CEL rule evaluation may spend;
	// zero means DefaultPerCallLimit.
	PerCallLimit uint64
	// RuntimeCostBudget is the runtime cost all CEL rules may spend on one
	// object; zero means DefaultRuntimeCostBudget.
	RuntimeCostBudget int64
}

// Schema is a compiled openAPIV3Schema of one custom resource version: it
// validates, defaults and prunes objects of that version. Compile builds
// it once; it is immutable and safe for concurrent use by any number of
// goroutines, and holds no resources beyond memory.
//
// Objects are in canonical JSON form (see DecodeJSON): map[string]any
// with nil, bool, int64, float64, string, []any and map[string]any
// values.
type Schema struct {
	root   *node
	budget int64
	// defaults says some node has a default (Default can add a field).
	defaults bool
}

// Compile turns props into a Schema. props must be a structural schema
// (see CheckStructural); CEL rules are compiled and their estimated costs
// checked. Errors wrap ErrNotStructural, ErrInvalidSchema or ErrTooDeep
// and name the offending schema path. A nil props compiles to a schema
// that accepts everything, defaults nothing and prunes nothing.
func Compile(props *JSONSchemaProps, cfg *Config) (*Schema, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	s := &Schema{budget: cfg.RuntimeCostBudget}
	if s.budget == 0 {
		s.budget = DefaultRuntimeCostBudget
	}
	if props == nil {
		return s, nil
	}
	if errs := CheckStructural(props, nil); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrNotStructural, errs.ToAggregate())
	}
	root, err := compileNode(props, 0, "openAPIV3Schema")
	if err != nil {
		return nil, err
	}
	limit := cfg.PerCallLimit
	if limit == 0 {
		limit = DefaultPerCallLimit
	}
	if errs := compileCEL(root, field.NewPath("openAPIV3Schema"), limit); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, errs.ToAggregate())
	}
	s.root = root
	s.defaults = anyDefault(root)
	return s, nil
}

// HasDefaults reports whether the schema declares a default anywhere:
// without one, Default can remove null fields but never add one.
func (s *Schema) HasDefaults() bool { return s.defaults }

func anyDefault(n *node) bool {
	if n == nil {
		return false
	}
	if n.hasDefault {
		return true
	}
	for _, c := range n.properties {
		if anyDefault(c) {
			return true
		}
	}
	return anyDefault(n.additional) || anyDefault(n.items)
}

// Validate checks a new object against the schema, as Kubernetes validates
// a custom resource on create: the schema's value validations (errors
// named as kube-openapi names them), embedded resources, list-type
// uniqueness, then the CEL rules (skipped, with a note, when earlier
// errors make them meaningless). Transition rules do not run.
func (s *Schema) Validate(ctx context.Context, obj map[string]any) field.ErrorList {
	return s.validate(ctx, obj, nil)
}

// ValidateUpdate checks obj as the replacement of old: as Validate, and
// CEL transition rules (those using oldSelf) run wherever old has a
// correlated value (same property, same map key, same list-map key).
// Validation ratchets as in Kubernetes: a value equal to its correlated
// old value is not checked again (neither its schema nor its CEL rules
// that do not use oldSelf), and list-type uniqueness is checked only if
// the old object satisfied it.
func (s *Schema) ValidateUpdate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if old == nil {
		old = map[string]any{}
	}
	return s.validate(ctx, obj, old)
}

func (s *Schema) validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if s.root == nil {
		return nil
	}
	v := valueValidator{}
	v.value(s.root, obj, newPath(), old, old != nil)
	errs := v.errs
	if s.root.hasExtra {
		errs = append(errs, validateEmbedded(s.root, obj, nil)...)
		if old == nil || len(validateListTypes(s.root, old, nil)) == 0 {
			errs = append(errs, validateListTypes(s.root, obj, nil)...)
		}
	}
	if !s.root.hasCEL {
		return errs
	}
	if blocking(errs) {
		return append(errs, field.Invalid(nil, nullValue{}, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	e := celEvaluator{ctx: ctx, budget: s.budget}
	var oldRoot any
	if old != nil {
		oldRoot = old
	}
	e.walk(s.root, obj, oldRoot, newPath())
	return append(errs, e.errs...)
}

// blocking reports errors after which Kubernetes does not run CEL rules
// (their cost bounds rely on the schema's limits holding).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// Default applies the schema's defaults to obj in place, as Kubernetes does
// when it reads a custom resource from a request or from storage: nulls
// the schema does not allow and cannot default are dropped, then every
// missing property with a default (below objects that exist) is filled
// with a copy of it.
func (s *Schema) Default(obj map[string]any) {
	if s.root == nil {
		return
	}
	pruneNulls(obj, s.root)
	applyDefaults(obj, s.root)
}

// Prune removes from obj, in place, every field the schema does not
// specify (except below x-kubernetes-preserve-unknown-fields), keeps
// apiVersion, kind and metadata at the root and in embedded resources, and
// normalises the metadata of embedded resources (fields ObjectMeta does
// not have are dropped). It returns the paths of the removed fields,
// sorted ("spec.foo", "spec.list[0].bar"), which is what a strict field
// validation reports as unknown fields. An embedded resource whose
// apiVersion or kind is not a string, or whose metadata is not an
// ObjectMeta, is an error.
func (s *Schema) Prune(obj map[string]any) ([]string, *field.Error) {
	if s.root == nil {
		return nil, nil
	}
	var pr pruner
	var dropped []string
	if err := coerceEmbedded(s.root, obj, newPath(), &dropped); err != nil {
		return nil, err
	}
	pr.root(obj, s.root)
	out := append(pr.out, dropped...)
	sort.Strings(out)
	return out, nil
}

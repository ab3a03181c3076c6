package scheme

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// Type describes one kind and the resource that serves it.
type Type struct {
	// Kind is the group, version and kind ("apps", "v1", "Deployment").
	Kind meta.GroupVersionKind
	// Resource is the plural lower-case name used in REST paths ("deployments").
	Resource string
	// Singular is the singular lower-case name ("deployment"); derived from
	// Kind when empty.
	Singular string
	// Namespaced says whether objects live in a namespace.
	Namespaced bool
	// ShortNames are kubectl's abbreviations ("deploy").
	ShortNames []string
	// Categories group resources for kubectl ("all").
	Categories []string
	// Subresources the kind serves besides the main resource ("status", "scale").
	Subresources []string
	// ListKindName is the kind of lists; empty means Kind + "List" (a
	// CustomResourceDefinition may name another).
	ListKindName string

	// New returns a new empty object of the kind. Required.
	New func() meta.Object
	// NewList returns a new empty list of the kind. Required.
	NewList func() meta.ListObject
	// Default fills defaults in place, as the API server does before
	// validating. Nil means no defaults.
	Default func(meta.Object)
	// Validate checks a new object. Nil means anything goes.
	Validate func(meta.Object) field.ErrorList
	// ValidateUpdate checks obj as a replacement for old (immutable fields).
	// Nil means Validate alone.
	ValidateUpdate func(obj, old meta.Object) field.ErrorList
}

// GroupVersionResource returns the resource's group, version and name.
func (t *Type) GroupVersionResource() meta.GroupVersionResource {
	return t.Kind.GroupVersion().WithResource(t.Resource)
}

// ListKind returns the kind of the list ("DeploymentList"): ListKindName,
// or Kind + "List".
func (t *Type) ListKind() string {
	if t.ListKindName != "" {
		return t.ListKindName
	}
	return t.Kind.Kind + "List"
}

// Scheme is the registry of kinds. It is safe for concurrent use; register
// kinds before serving, though registering later is allowed.
type Scheme struct {
	mu         sync.RWMutex
	byKind     map[meta.GroupVersionKind]*Type
	byResource map[meta.GroupVersionResource]*Type
	order      []*Type
}

// New returns an empty scheme.
func New() *Scheme {
	return &Scheme{
		byKind:     map[meta.GroupVersionKind]*Type{},
		byResource: map[meta.GroupVersionResource]*Type{},
	}
}

// Register adds t. It fails when the kind or resource is already
// registered or when t is incomplete.
func (s *Scheme) Register(t Type) error {
	switch {
	case t.Kind.Kind == "" || t.Kind.Version == "":
		return fmt.Errorf("register %v: kind and version are required", t.Kind)
	case t.Resource == "" || strings.ToLower(t.Resource) != t.Resource:
		return fmt.Errorf("register %v: resource %q must be a lower-case plural", t.Kind, t.Resource)
	case t.New == nil || t.NewList == nil:
		return fmt.Errorf("register %v: New and NewList are required", t.Kind)
	}
	if t.Singular == "" {
		t.Singular = strings.ToLower(t.Kind.Kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byKind[t.Kind]; ok {
		return fmt.Errorf("register %v: kind already registered", t.Kind)
	}
	gvr := t.GroupVersionResource()
	if _, ok := s.byResource[gvr]; ok {
		return fmt.Errorf("register %v: resource %v already registered", t.Kind, gvr)
	}
	tp := &t
	s.byKind[t.Kind] = tp
	s.byResource[gvr] = tp
	s.order = append(s.order, tp)
	return nil
}

// MustRegister is Register for built-in tables, where a failure is a bug.
func (s *Scheme) MustRegister(types ...Type) {
	for _, t := range types {
		if err := s.Register(t); err != nil {
			panic(err)
		}
	}
}

// ByKind returns the type registered for gvk.
func (s *Scheme) ByKind(gvk meta.GroupVersionKind) (*Type, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.byKind[gvk]
	return t, ok
}

// ByResource returns the type registered for gvr.
func (s *Scheme) ByResource(gvr meta.GroupVersionResource) (*Type, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.byResource[gvr]
	return t, ok
}

// Types returns every registered type in registration order.
func (s *Scheme) Types() []*Type {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.order)
}

// Decode reads the apiVersion and kind of data, makes a new object of that
// kind and decodes data into it. It sets the object's TypeMeta.
func (s *Scheme) Decode(data []byte) (meta.Object, *Type, error) {
	var tm meta.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return nil, nil, fmt.Errorf("decode object: %w", err)
	}
	if tm.Kind == "" || tm.APIVersion == "" {
		return nil, nil, fmt.Errorf("decode object: apiVersion and kind are required")
	}
	t, ok := s.ByKind(tm.GroupVersionKind())
	if !ok {
		return nil, nil, fmt.Errorf("decode object: no kind %q is registered in version %q", tm.Kind, tm.APIVersion)
	}
	obj := t.New()
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", tm.Kind, err)
	}
	obj.GetTypeMeta().SetGroupVersionKind(t.Kind)
	return obj, t, nil
}

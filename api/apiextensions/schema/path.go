package schema

import (
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/field"
)

// segKind is how one step of a walk reached a value.
type segKind uint8

const (
	segProp  segKind = iota // a property of an object ("spec")
	segKey                  // an entry of a map (additionalProperties)
	segIndex                // an item of an array
)

type seg struct {
	kind segKind
	key  string
	idx  int
}

// walkPath is the path of the value a walk is at, kept as a stack so that
// walking allocates nothing; it is rendered only when an error is
// reported.
type walkPath []seg

// newPath returns an empty path with room for typical nesting, so that
// descending (which appends to the shared backing array) does not
// allocate.
func newPath() walkPath { return make(walkPath, 0, 32) }

func (p walkPath) prop(k string) walkPath { return append(p, seg{kind: segProp, key: k}) }
func (p walkPath) key(k string) walkPath  { return append(p, seg{kind: segKey, key: k}) }
func (p walkPath) index(i int) walkPath   { return append(p, seg{kind: segIndex, idx: i}) }

// openAPIName renders the path as kube-openapi names values in its
// messages: properties and map keys joined by dots, indices in brackets
// ("spec.list[0].labels.app").
func (p walkPath) openAPIName() string {
	var b strings.Builder
	for _, s := range p {
		if s.kind == segIndex {
			b.WriteString("[" + strconv.Itoa(s.idx) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// fieldPath renders the path below base as field.Path does
// ("spec.labels[app]", "spec.list[0]").
func (p walkPath) fieldPath(base *field.Path) *field.Path {
	out := base
	for _, s := range p {
		switch s.kind {
		case segProp:
			if out == nil {
				out = field.NewPath(s.key)
			} else {
				out = out.Child(s.key)
			}
		case segKey:
			out = out.Key(s.key)
		case segIndex:
			out = out.Index(s.idx)
		}
	}
	return out
}

// childOf returns base.Child(name), or base when name is empty: how
// Kubernetes turns a kube-openapi error name into a field path.
func childOf(base *field.Path, name string) *field.Path {
	if name == "" {
		return base
	}
	if base == nil {
		return field.NewPath(name)
	}
	return base.Child(name)
}

// nullValue renders as null in a field error, as Kubernetes prints a nil
// bad value.
type nullValue struct{}

// String implements fmt.Stringer.
func (nullValue) String() string { return "null" }

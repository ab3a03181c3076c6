package field

import (
	"strconv"
	"strings"
)

// Path is the path to a field from the object's root. The nil *Path is the
// root itself. Paths are immutable; Child, Index and Key return new ones.
type Path struct {
	name   string
	index  string
	parent *Path
}

// NewPath returns the path to a top-level field and, optionally, below it.
func NewPath(name string, more ...string) *Path {
	p := &Path{name: name}
	for _, m := range more {
		p = p.Child(m)
	}
	return p
}

// Child returns the path to field name (and, optionally, below it) under p.
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{name: name, parent: p}
	for _, m := range more {
		c = c.Child(m)
	}
	return c
}

// Index returns the path to element i of the list at p.
func (p *Path) Index(i int) *Path { return &Path{index: strconv.Itoa(i), parent: p} }

// Key returns the path to entry k of the map at p.
func (p *Path) Key(k string) *Path { return &Path{index: k, parent: p} }

// String renders the path as Kubernetes does: "spec.containers[0].image".
func (p *Path) String() string {
	if p == nil {
		return "<nil>"
	}
	var elems []*Path
	for e := p; e != nil; e = e.parent {
		elems = append(elems, e)
	}
	var b strings.Builder
	for i := len(elems) - 1; i >= 0; i-- {
		e := elems[i]
		if e.index != "" || e.name == "" {
			b.WriteString("[" + e.index + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.name)
	}
	return b.String()
}

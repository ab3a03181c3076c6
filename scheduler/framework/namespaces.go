package framework

import "github.com/orkit/orkit/api/labels"

// Namespaces gives plugins the namespaces' labels, which the
// namespaceSelector of a pod (anti-)affinity term is matched against. The
// scheduler backs it with its namespace informer; simulations may pass
// their own or none (then only an empty namespaceSelector, "every
// namespace", matches anything).
type Namespaces interface {
	// Labels returns the labels of namespace ns, nil when it is unknown.
	Labels(ns string) labels.Set
	// Matching returns the names of the namespaces whose labels sel
	// matches.
	Matching(sel labels.Selector) []string
}

// StaticNamespaces is a fixed Namespaces: namespace name to labels.
type StaticNamespaces map[string]labels.Set

// Labels implements Namespaces.
func (s StaticNamespaces) Labels(ns string) labels.Set { return s[ns] }

// Matching implements Namespaces.
func (s StaticNamespaces) Matching(sel labels.Selector) []string {
	var out []string
	for name, l := range s {
		if sel.Matches(l) {
			out = append(out, name)
		}
	}
	return out
}

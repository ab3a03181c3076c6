package scheduler

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
)

// namespaceLabels is the scheduler's framework.Namespaces: the labels of
// every namespace, from its namespace informer (objects trimmed to name
// and labels), for the namespaceSelector of pod affinity terms.
type namespaceLabels struct {
	inf *informer.Informer[*core.Namespace]
}

var _ framework.Namespaces = namespaceLabels{}

// newNamespaceInformer builds the informer namespaceLabels reads; only
// names and labels are kept.
func newNamespaceInformer(c informer.ListerWatcher[*core.Namespace], s *Scheduler) *informer.Informer[*core.Namespace] {
	trim := func(ns *core.Namespace) (*core.Namespace, error) {
		out := &core.Namespace{}
		out.Name, out.Labels, out.ResourceVersion = ns.Name, ns.Labels, ns.ResourceVersion
		return out, nil
	}
	return informer.New[*core.Namespace](c, informer.Config[*core.Namespace]{Name: "namespaces", Transform: trim, Logger: s.log})
}

// Labels implements framework.Namespaces.
func (n namespaceLabels) Labels(ns string) labels.Set {
	obj, err := n.inf.Lister().Get("", ns)
	if err != nil {
		return nil
	}
	return obj.Labels
}

// Matching implements framework.Namespaces.
func (n namespaceLabels) Matching(sel labels.Selector) []string {
	list := n.inf.Lister().List(sel)
	out := make([]string, len(list))
	for i, ns := range list {
		out[i] = ns.Name
	}
	return out
}

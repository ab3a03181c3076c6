package admission

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// matcher decides whether a webhook or policy applies to a request, as
// Kubernetes' generic admission matching does: namespace selector, object
// selector, then the rules. It reads namespaces from a cache and, for one
// the cache has not seen, from storage. Safe for concurrent use.
type matcher struct {
	namespaces  NamespaceGetter
	lookup      NamespaceLookup
	equivalents EquivalentResourceMapper // nil: no equivalents
}

// ruleMatches reports whether r selects a: operation, group, version,
// resource with subresource ("pods/status", "pods/*", "*/scale", "*"
// meaning every resource without a subresource) and scope.
func ruleMatches(r *admissionregistration.RuleWithOperations, a *Attributes) bool {
	if !slices.Contains(r.Operations, admissionregistration.OperationAll) &&
		!slices.Contains(r.Operations, admissionregistration.OperationType(a.Operation)) {
		return false
	}
	if !listMatches(r.APIGroups, a.Resource.Group) || !listMatches(r.APIVersions, a.Resource.Version) {
		return false
	}
	if !resourceMatches(r.Resources, a.Resource.Resource, a.Subresource) {
		return false
	}
	return scopeMatches(r.Scope, a)
}

func listMatches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

func resourceMatches(resources []string, res, sub string) bool {
	for _, rs := range resources {
		r, s, _ := strings.Cut(rs, "/")
		if (r == "*" || r == res) && (s == "*" || s == sub) {
			return true
		}
	}
	return false
}

func scopeMatches(scope *admissionregistration.ScopeType, a *Attributes) bool {
	isNamespaceObject := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	switch {
	case scope == nil || *scope == admissionregistration.AllScopes:
		return true
	case *scope == admissionregistration.NamespacedScope:
		return !isNamespaceObject && a.Namespace != ""
	case *scope == admissionregistration.ClusterScope:
		return isNamespaceObject || a.Namespace == ""
	}
	return false
}

// namespaceSelectorMatches applies sel to the labels of the request's
// namespace (of the namespace itself for namespaces). Requests for other
// cluster-scoped objects always match. A namespace that does not exist is
// a 404, as kube-apiserver answers.
func (m *matcher) namespaceSelectorMatches(ctx context.Context, sel *meta.LabelSelector, a *Attributes) (bool, error) {
	isNamespaceObject := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	if a.Namespace == "" && !isNamespaceObject {
		return true, nil
	}
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return true, nil
	}
	s, err := labels.SelectorFromLabelSelector(sel)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	lbls, err := m.namespaceLabels(ctx, a, isNamespaceObject)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(lbls)), nil
}

func (m *matcher) namespaceLabels(ctx context.Context, a *Attributes, isNamespaceObject bool) (map[string]string, error) {
	if isNamespaceObject {
		if a.Object != nil {
			return a.Object.GetObjectMeta().Labels, nil
		}
		if a.OldObject != nil {
			return a.OldObject.GetObjectMeta().Labels, nil
		}
	}
	name := a.Namespace
	if isNamespaceObject {
		name = a.Name
	}
	if m.namespaces != nil {
		if ns, ok := m.namespaces.GetNamespace(name); ok {
			return ns.Labels, nil
		}
	}
	if m.lookup == nil {
		return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "namespaces"}, name)
	}
	ns, err := m.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	return ns.Labels, nil
}

// objectSelectorMatches applies sel to the labels of the new object or of
// the old one: either matching is enough.
func objectSelectorMatches(sel *meta.LabelSelector, a *Attributes) (bool, error) {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return true, nil
	}
	s, err := labels.SelectorFromLabelSelector(sel)
	if err != nil {
		return false, apierrors.NewInternalError(fmt.Errorf("object selector: %w", err))
	}
	for _, o := range []meta.Object{a.Object, a.OldObject} {
		if o != nil && s.Matches(labels.Set(o.GetObjectMeta().Labels)) {
			return true, nil
		}
	}
	return false, nil
}

// admissionConfigurations are the admissionregistration.k8s.io resources
// that no webhook and no admission policy is called for, as
// kube-apiserver exempts them: a webhook or policy that denied (or failed
// on) changes to the configurations could never be removed or fixed.
var admissionConfigurations = map[string]bool{
	"validatingwebhookconfigurations": true, "mutatingwebhookconfigurations": true,
	"validatingadmissionpolicies": true, "validatingadmissionpolicybindings": true,
	"mutatingadmissionpolicies": true, "mutatingadmissionpolicybindings": true,
}

// isAdmissionConfiguration reports whether a is a request on one of the
// admissionConfigurations.
func isAdmissionConfiguration(a *Attributes) bool {
	return a.Resource.Group == admissionregistration.GroupName && admissionConfigurations[a.Resource.Resource]
}

// matchesWebhook returns the attributes w is to be called with, or nil
// when it does not apply to a: a itself when one of its rules selects the
// request as made; with matchPolicy Equivalent and no such rule, a copy
// naming the first equivalent resource (and its kind) an earlier rule
// selects, as kube-apiserver's webhook matcher does. An equivalent without
// a kind is a 500.
func (m *matcher) matchesWebhook(ctx context.Context, w *admissionregistration.ValidatingWebhook, a *Attributes) (*Attributes, error) {
	if isAdmissionConfiguration(a) {
		return nil, nil
	}
	if ok, err := m.namespaceSelectorMatches(ctx, w.NamespaceSelector, a); !ok || err != nil {
		return nil, err
	}
	if ok, err := objectSelectorMatches(w.ObjectSelector, a); !ok || err != nil {
		return nil, err
	}
	for i := range w.Rules {
		if ruleMatches(&w.Rules[i], a) {
			return a, nil
		}
	}
	if w.MatchPolicy == nil || *w.MatchPolicy != admissionregistration.Equivalent || m.equivalents == nil {
		return nil, nil
	}
	equivalents := m.equivalents.EquivalentResources(a.Resource, a.Subresource)
	for i := range w.Rules {
		for _, eq := range equivalents {
			if eq.Resource == a.Resource {
				continue // checked above
			}
			v := *a
			v.Resource = eq.Resource
			if !ruleMatches(&w.Rules[i], &v) {
				continue
			}
			if eq.Kind.Kind == "" {
				return nil, apierrors.NewInternalError(fmt.Errorf("unable to convert to %s/%s, Resource=%s: unknown kind",
					eq.Resource.Group, eq.Resource.Version, eq.Resource.Resource))
			}
			v.Kind = eq.Kind
			return &v, nil
		}
	}
	return nil, nil
}

// programCache holds compiled matchCondition expressions by their text
// (programs are immutable, so equal text shares one). Safe for concurrent
// use; it is emptied when it grows past a bound.
type programCache struct {
	mu    sync.Mutex
	progs map[string]*celpolicy.Program
}

func (c *programCache) get(expr string) (*celpolicy.Program, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.progs[expr]; ok {
		return p, nil
	}
	p, err := celpolicy.Compile(expr, celpolicy.Bool)
	if err != nil {
		return nil, err
	}
	if c.progs == nil || len(c.progs) > 1024 {
		c.progs = map[string]*celpolicy.Program{}
	}
	c.progs[expr] = p
	return p, nil
}

// conditionsMatch evaluates a webhook's matchConditions: all must be true
// for it to be called. An expression that fails is an error the
// webhook's failurePolicy decides on.
func (c *programCache) conditionsMatch(ctx context.Context, name string, conds []admissionregistration.MatchCondition, req *requestVars, m *matcher) (bool, error) {
	if len(conds) == 0 {
		return true, nil
	}
	act, err := req.activation(ctx, m)
	if err != nil {
		return false, &callError{webhook: name, reason: fmt.Errorf("failed to evaluate match conditions: %w", err)}
	}
	for _, mc := range conds {
		p, err := c.get(mc.Expression)
		if err == nil {
			var ok bool
			if ok, err = p.EvalBool(act); err == nil && !ok {
				return false, nil
			}
		}
		if err != nil {
			return false, &callError{webhook: name, reason: fmt.Errorf("failed to evaluate match condition %q: %w", mc.Name, err)}
		}
	}
	return true, nil
}

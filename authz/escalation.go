package authz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
)

// RBAC escalation prevention, as kube-apiserver's RBAC storage does it
// (pkg/registry/rbac): a user may write a Role or ClusterRole only if it
// already holds every rule the role grants (or may "escalate" roles), and
// a RoleBinding or ClusterRoleBinding only if it holds every rule of the
// role it refers to (or may "bind" that role). Members of system:masters
// skip the checks. "Holding" is judged by the RBAC rules alone, never by
// the other authorizers; the escalate and bind verbs are asked of the
// whole authorizer chain.

// PolicyResolver resolves RBAC rules for the escalation checks.
// *RBACAuthorizer implements it. Methods are safe for concurrent use.
type PolicyResolver interface {
	// PolicyRulesFor returns every rule the user's bindings grant in
	// namespace (ClusterRoleBindings, then the namespace's RoleBindings;
	// "" for cluster-wide grants only). An error reports bindings whose
	// role could not be read; the rules found are still returned.
	PolicyRulesFor(u *authn.User, namespace string) ([]rbac.PolicyRule, error)
}

var _ PolicyResolver = (*RBACAuthorizer)(nil)

// EscalationError is ConfirmNoEscalation's refusal: the rules the user
// would grant without holding them. It wraps ErrEscalation, and its text
// is kube-apiserver's, which the server puts after `<resource> "<name>"
// is forbidden: `.
type EscalationError struct {
	User    string
	Groups  []string
	Missing []rbac.PolicyRule // compacted, one line each in the message
	// Resolution are the errors met resolving the user's own rules.
	Resolution []error
}

// Error words the refusal as kube-apiserver does:
//
//	user "u" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//	{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}
func (e *EscalationError) Error() string {
	lines := make([]string, 0, len(e.Missing))
	for _, r := range e.Missing {
		lines = append(lines, rbac.CompactString(r))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	groups := e.Groups
	if groups == nil {
		groups = []string{}
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		e.User, groups, strings.Join(lines, "\n"))
	if len(e.Resolution) > 0 {
		msg += fmt.Sprintf("; resolution errors: %v", e.Resolution)
	}
	return msg
}

// Unwrap returns ErrEscalation.
func (e *EscalationError) Unwrap() error { return ErrEscalation }

// ConfirmNoEscalation returns nil when u's RBAC rules in namespace cover
// rules (rbac.Covers), else an *EscalationError listing what is missing.
// Errors resolving u's rules do not fail the check by themselves (rules
// are additive, so what was found still counts); they are named in the
// refusal.
func ConfirmNoEscalation(r PolicyResolver, u *authn.User, namespace string, rules []rbac.PolicyRule) error {
	if u == nil {
		return fmt.Errorf("%w: no user on the request", ErrEscalation)
	}
	owner, err := r.PolicyRulesFor(u, namespace)
	ok, missing := rbac.Covers(owner, rules)
	if ok {
		return nil
	}
	e := &EscalationError{User: u.Name, Groups: u.Groups, Missing: rbac.CompactRules(missing)}
	if err != nil {
		e.Resolution = []error{err}
	}
	return e
}

// FullAuthority is what setting a ClusterRole's aggregationRule needs:
// every verb on every resource and every non-resource URL (an aggregated
// role can gather any rule, so only a cluster admin may set or change
// one). Callers must not change it.
var FullAuthority = []rbac.PolicyRule{
	{Verbs: []string{rbac.VerbAll}, APIGroups: []string{rbac.APIGroupAll}, Resources: []string{rbac.ResourceAll}},
	{Verbs: []string{rbac.VerbAll}, NonResourceURLs: []string{rbac.NonResourceAll}},
}

// EscalationAllowed reports whether u skips the escalation checks: a
// member of system:masters (who may do anything anyway).
// A nil u is not.
func EscalationAllowed(u *authn.User) bool {
	return u.InGroup(authn.GroupMasters)
}

// RoleEscalationAuthorized reports whether a may allow u the "escalate"
// verb on resource ("roles" or "clusterroles" of rbac.authorization.k8s.io;
// anything else is false) named name in namespace, as kube-apiserver asks
// before it checks a role's rules. On create name is empty, so only an
// escalate grant without resourceNames counts, as in Kubernetes.
func RoleEscalationAuthorized(ctx context.Context, a Authorizer, u *authn.User, resource, namespace, name string) bool {
	if a == nil || u == nil || (resource != "roles" && resource != "clusterroles") {
		return false
	}
	d, _, _ := a.Authorize(ctx, Attributes{User: u, Verb: VerbEscalate, APIGroup: rbac.GroupName, APIVersion: "*",
		Resource: resource, Name: name, Namespace: namespace, ResourceRequest: true})
	return d == DecisionAllow
}

// BindingAuthorized reports whether a may allow u the "bind" verb on the
// role ref names, in namespace (the binding's; "" for a
// ClusterRoleBinding), as kube-apiserver asks before it checks the role's
// rules. A ref of another kind is false.
func BindingAuthorized(ctx context.Context, a Authorizer, u *authn.User, ref rbac.RoleRef, namespace string) bool {
	if a == nil || u == nil {
		return false
	}
	attrs := Attributes{User: u, Verb: VerbBind, Namespace: namespace, APIGroup: ref.APIGroup, Name: ref.Name, ResourceRequest: true}
	switch ref.Kind {
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	case "Role":
		attrs.Resource = "roles"
	default:
		return false
	}
	d, _, _ := a.Authorize(ctx, attrs)
	return d == DecisionAllow
}

// PolicyRulesFor implements PolicyResolver with the same bindings
// Authorize reads: unlike Authorize, a RoleBinding's non-resource rules
// count too, as in kube-apiserver's rule resolver.
func (z *RBACAuthorizer) PolicyRulesFor(u *authn.User, namespace string) ([]rbac.PolicyRule, error) {
	if u == nil {
		return nil, nil
	}
	gs := z.resolve(u, namespace)
	var out []rbac.PolicyRule
	for _, g := range gs.grants {
		out = append(out, g.rules...)
	}
	return out, errors.Join(gs.errs...)
}

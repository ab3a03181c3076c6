package authz

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
)

// ServiceAccountUsernamePrefix starts the user name of every service
// account: system:serviceaccount:<namespace>:<name>.
const ServiceAccountUsernamePrefix = "system:serviceaccount:"

// ServiceAccountUsername returns the user name of service account name in
// namespace ns.
func ServiceAccountUsername(ns, name string) string {
	return ServiceAccountUsernamePrefix + ns + ":" + name
}

// RBACSource is what the RBAC authorizer reads: the server implements it
// from its informer caches. Returned objects are shared and must not be
// changed. A missing role is an error (reported in the reason, as
// Kubernetes does); methods must be safe for concurrent use and should not
// block on the network.
type RBACSource interface {
	GetRole(namespace, name string) (*rbac.Role, error)
	GetClusterRole(name string) (*rbac.ClusterRole, error)
	ListRoleBindings(namespace string) ([]*rbac.RoleBinding, error)
	ListClusterRoleBindings() ([]*rbac.ClusterRoleBinding, error)
}

// RBACRevisioner is an optional ability of an RBACSource: RBACRevision
// returns a number that changes whenever any role, cluster role or binding
// changed since an earlier call (it need not change for anything else).
// With it, the RBAC authorizer keeps each user's resolved rules until the
// number moves instead of walking every binding on every request.
type RBACRevisioner interface {
	RBACRevision() int64
}

// RBACAuthorizer allows a request when a binding grants the user a role
// with a matching rule; otherwise it has no opinion. It never denies.
// When its source is an RBACRevisioner it caches, per user (name and
// groups) and namespace, the rules the bindings grant, dropping the whole
// cache when the source's revision moves. Safe for concurrent use.
type RBACAuthorizer struct {
	src    RBACSource
	rev    RBACRevisioner // nil: no caching
	grants grantCache
}

var _ Authorizer = (*RBACAuthorizer)(nil)

// RBAC returns the authorizer reading roles and bindings from src.
func RBAC(src RBACSource) *RBACAuthorizer {
	z := &RBACAuthorizer{src: src}
	z.rev, _ = src.(RBACRevisioner)
	return z
}

// Authorize implements Authorizer. ClusterRoleBindings are checked first,
// then the RoleBindings of the request's namespace (a RoleBinding of a
// ClusterRole grants its rules in that namespace only; non-resource URLs
// are granted by ClusterRoleBindings only). Lookup failures — a missing
// role, a source error — become the reason of a NoOpinion ("RBAC: ...")
// and never an error, so a broken binding cannot take the server down.
func (z *RBACAuthorizer) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if a.User == nil {
		return DecisionNoOpinion, "", nil
	}
	gs := z.grantsFor(a)
	for i := range gs.grants {
		if rulesAllow(gs.grants[i].rules, a) {
			return DecisionAllow, gs.grants[i].reason, nil
		}
	}
	if len(gs.errs) > 0 {
		return DecisionNoOpinion, "RBAC: " + joinErrs(gs.errs), nil
	}
	return DecisionNoOpinion, "", nil
}

// grantsFor returns the rules a's user holds where a applies: from the
// cache when the source has a revision, else resolved now.
func (z *RBACAuthorizer) grantsFor(a Attributes) *grantSet {
	ns := a.Namespace
	if !a.ResourceRequest {
		ns = ""
	}
	if z.rev == nil {
		return z.resolve(a.User, ns)
	}
	rev := z.rev.RBACRevision()
	if gs := z.grants.get(rev, a.User, ns); gs != nil {
		return gs
	}
	gs := z.resolve(a.User, ns)
	z.grants.put(rev, a.User, ns, gs)
	return gs
}

// grant is one binding's rules with the reason an allow by it gives.
type grant struct {
	rules  []rbac.PolicyRule
	reason string
}

// grantSet is what a user holds in one namespace ("" for cluster-wide
// only), in the order the bindings are checked, with the lookup failures
// met on the way. Never changed once made.
type grantSet struct {
	grants []grant
	errs   []error
}

// resolve walks the bindings that name u: every ClusterRoleBinding, then,
// for a namespace, that namespace's RoleBindings.
func (z *RBACAuthorizer) resolve(u *authn.User, ns string) *grantSet {
	gs := &grantSet{}
	z.resolveClusterBindings(u, gs)
	if ns != "" {
		z.resolveRoleBindings(u, ns, gs)
	}
	return gs
}

func (z *RBACAuthorizer) resolveClusterBindings(u *authn.User, gs *grantSet) {
	bindings, err := z.src.ListClusterRoleBindings()
	if err != nil {
		gs.errs = append(gs.errs, err)
	}
	for _, b := range bindings {
		i := appliesTo(u, b.Subjects, "")
		if i < 0 {
			continue
		}
		if b.RoleRef.Kind != "ClusterRole" {
			gs.errs = append(gs.errs, fmt.Errorf("clusterrolebinding %q refers to a %s", b.Name, b.RoleRef.Kind))
			continue
		}
		role, err := z.src.GetClusterRole(b.RoleRef.Name)
		if err != nil {
			gs.errs = append(gs.errs, err)
			continue
		}
		gs.grants = append(gs.grants, grant{rules: role.Rules, reason: fmt.Sprintf("RBAC: allowed by ClusterRoleBinding %q of %s %q to %s",
			b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(b.Subjects[i], ""))})
	}
}

func (z *RBACAuthorizer) resolveRoleBindings(u *authn.User, ns string, gs *grantSet) {
	bindings, err := z.src.ListRoleBindings(ns)
	if err != nil {
		gs.errs = append(gs.errs, err)
	}
	for _, b := range bindings {
		i := appliesTo(u, b.Subjects, b.Namespace)
		if i < 0 {
			continue
		}
		rules, err := z.roleRules(b)
		if err != nil {
			gs.errs = append(gs.errs, err)
			continue
		}
		gs.grants = append(gs.grants, grant{rules: rules, reason: fmt.Sprintf("RBAC: allowed by RoleBinding %q of %s %q to %s",
			b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(b.Subjects[i], b.Namespace))})
	}
}

// roleRules resolves a RoleBinding's roleRef to rules.
func (z *RBACAuthorizer) roleRules(b *rbac.RoleBinding) ([]rbac.PolicyRule, error) {
	switch b.RoleRef.Kind {
	case "Role":
		r, err := z.src.GetRole(b.Namespace, b.RoleRef.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	case "ClusterRole":
		r, err := z.src.GetClusterRole(b.RoleRef.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("rolebinding %q refers to unknown kind %q", b.Namespace+"/"+b.Name, b.RoleRef.Kind)
}

// rulesAllow matches a request against rules with api/rbac's helpers.
func rulesAllow(rules []rbac.PolicyRule, a Attributes) bool {
	if a.ResourceRequest {
		return rbac.RulesAllow(rules, a.Verb, a.APIGroup, a.Resource, a.Subresource, a.Name)
	}
	return rbac.RulesAllowNonResource(rules, a.Verb, a.Path)
}

// appliesTo returns the index of the first subject that names u, or -1.
// A service account subject without a namespace takes bindingNS.
func appliesTo(u *authn.User, subjects []rbac.Subject, bindingNS string) int {
	for i, s := range subjects {
		switch s.Kind {
		case rbac.UserKind:
			if u.Name == s.Name {
				return i
			}
		case rbac.GroupKind:
			if slices.Contains(u.Groups, s.Name) {
				return i
			}
		case rbac.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = bindingNS
			}
			if ns != "" && u.Name == ServiceAccountUsername(ns, s.Name) {
				return i
			}
		}
	}
	return -1
}

// describeSubject words a subject as Kubernetes' RBAC reasons do.
func describeSubject(s rbac.Subject, bindingNS string) string {
	if s.Kind == rbac.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNS
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

func joinErrs(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// notFound is the error Policy returns for a missing role, worded as
// Kubernetes' NotFound status ("clusterrole.rbac.authorization.k8s.io
// \"x\" not found").
func notFound(kind, name string) error {
	return fmt.Errorf("%s.%s %q %w", kind, rbac.GroupName, name, ErrNotFound)
}

package authz

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
)

// RuleSet is what a user may do, as a SelfSubjectRulesReview reports it:
// the resource and non-resource grants an authorizer can enumerate.
// Incomplete is true when some authorizer could not list its rules (the
// Node and Webhook authorizers cannot), so the user may be able to do more
// than the rules say; rules are additive, so every listed grant holds.
// A RuleSet is plain data owned by the caller.
type RuleSet struct {
	ResourceRules    []authorization.ResourceRule
	NonResourceRules []authorization.NonResourceRule
	Incomplete       bool
}

// RuleResolver is an optional ability of an Authorizer: listing the rules
// a user holds in a namespace (cluster-wide grants included), as
// kube-apiserver's authorizers do for SelfSubjectRulesReview. An error
// reports a rule that could not be evaluated (a binding to a missing
// role); the returned rules are still valid, and the server shows the
// error as the review's evaluationError. Implementations are safe for
// concurrent use.
type RuleResolver interface {
	RulesFor(ctx context.Context, u *authn.User, namespace string) (RuleSet, error)
}

var (
	_ RuleResolver = (*ChainAuthorizer)(nil)
	_ RuleResolver = MastersAuthorizer{}
	_ RuleResolver = (*RBACAuthorizer)(nil)
	_ RuleResolver = (*ABACAuthorizer)(nil)
	_ RuleResolver = (*NodeAuthorizer)(nil)
	_ RuleResolver = (*WebhookAuthorizer)(nil)
)

// RulesFor implements RuleResolver as kube-apiserver's union does: the
// rules of every authorizer in order, Incomplete if any is, errors joined.
// An authorizer that is not a RuleResolver makes the set Incomplete with
// an error wrapping ErrRulesUnsupported. Rules repeated exactly (Masters
// and the cluster-admin binding both grant "*") are listed once.
func (c *ChainAuthorizer) RulesFor(ctx context.Context, u *authn.User, namespace string) (RuleSet, error) {
	var (
		out  RuleSet
		errs []error
	)
	for _, az := range c.auths {
		rr, ok := az.(RuleResolver)
		if !ok {
			out.Incomplete = true
			errs = append(errs, fmt.Errorf("authorizer %T %w", az, ErrRulesUnsupported))
			continue
		}
		rs, err := rr.RulesFor(ctx, u, namespace)
		if err != nil {
			errs = append(errs, err)
		}
		out.Incomplete = out.Incomplete || rs.Incomplete
		out.ResourceRules = appendNewResourceRules(out.ResourceRules, rs.ResourceRules)
		out.NonResourceRules = appendNewNonResourceRules(out.NonResourceRules, rs.NonResourceRules)
	}
	return out, errors.Join(errs...)
}

func appendNewResourceRules(dst, src []authorization.ResourceRule) []authorization.ResourceRule {
	for _, r := range src {
		if !slices.ContainsFunc(dst, func(d authorization.ResourceRule) bool {
			return slices.Equal(d.Verbs, r.Verbs) && slices.Equal(d.APIGroups, r.APIGroups) &&
				slices.Equal(d.Resources, r.Resources) && slices.Equal(d.ResourceNames, r.ResourceNames)
		}) {
			dst = append(dst, r)
		}
	}
	return dst
}

func appendNewNonResourceRules(dst, src []authorization.NonResourceRule) []authorization.NonResourceRule {
	for _, r := range src {
		if !slices.ContainsFunc(dst, func(d authorization.NonResourceRule) bool {
			return slices.Equal(d.Verbs, r.Verbs) && slices.Equal(d.NonResourceURLs, r.NonResourceURLs)
		}) {
			dst = append(dst, r)
		}
	}
	return dst
}

// RulesFor implements RuleResolver: a member of system:masters may do
// everything ("*" verbs on "*" resources of "*" groups, and on "*" paths);
// anyone else gets no rules from this authorizer.
func (MastersAuthorizer) RulesFor(ctx context.Context, u *authn.User, _ string) (RuleSet, error) {
	if !u.InGroup(authn.GroupMasters) {
		return RuleSet{}, nil
	}
	return AlwaysAllowAuthorizer{}.RulesFor(ctx, u, "")
}

// RulesFor implements RuleResolver: the rules of the ClusterRoles bound to
// the user (by name, group or service account) by ClusterRoleBindings,
// then of the Roles and ClusterRoles bound by the RoleBindings of
// namespace. As in Authorize, non-resource rules count only from
// ClusterRoleBindings. A binding whose role is missing is skipped and
// reported in the error, which joins every such failure.
func (z *RBACAuthorizer) RulesFor(_ context.Context, u *authn.User, namespace string) (RuleSet, error) {
	var (
		out  RuleSet
		errs []error
	)
	if u == nil {
		return out, nil
	}
	cbs, err := z.src.ListClusterRoleBindings()
	if err != nil {
		errs = append(errs, err)
	}
	for _, b := range cbs {
		if appliesTo(u, b.Subjects, "") < 0 {
			continue
		}
		if b.RoleRef.Kind != "ClusterRole" {
			errs = append(errs, fmt.Errorf("clusterrolebinding %q refers to a %s", b.Name, b.RoleRef.Kind))
			continue
		}
		role, err := z.src.GetClusterRole(b.RoleRef.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out.addPolicyRules(role.Rules, true)
	}
	if namespace == "" {
		return out, errors.Join(errs...)
	}
	rbs, err := z.src.ListRoleBindings(namespace)
	if err != nil {
		errs = append(errs, err)
	}
	for _, b := range rbs {
		if appliesTo(u, b.Subjects, b.Namespace) < 0 {
			continue
		}
		rs, err := z.roleRules(b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out.addPolicyRules(rs, false)
	}
	return out, errors.Join(errs...)
}

// addPolicyRules splits RBAC rules into resource and (when nonResource)
// non-resource grants. The slices are copied: the roles stay shared.
func (s *RuleSet) addPolicyRules(rules []rbac.PolicyRule, nonResource bool) {
	for _, r := range rules {
		if len(r.Resources) > 0 {
			s.ResourceRules = append(s.ResourceRules, authorization.ResourceRule{
				Verbs: slices.Clone(r.Verbs), APIGroups: slices.Clone(r.APIGroups),
				Resources: slices.Clone(r.Resources), ResourceNames: slices.Clone(r.ResourceNames),
			})
		}
		if nonResource && len(r.NonResourceURLs) > 0 {
			s.NonResourceRules = append(s.NonResourceRules, authorization.NonResourceRule{
				Verbs: slices.Clone(r.Verbs), NonResourceURLs: slices.Clone(r.NonResourceURLs),
			})
		}
	}
}

// RulesFor implements RuleResolver as Kubernetes' ABAC does: every policy
// line whose subject matches the user gives its resource (when the line
// names a resource and its namespace is "*" or namespace) and its
// non-resource path, with verbs get, list and watch for a readonly line
// and "*" otherwise.
func (z *ABACAuthorizer) RulesFor(_ context.Context, u *authn.User, namespace string) (RuleSet, error) {
	var out RuleSet
	a := Attributes{User: u}
	for _, p := range z.policies {
		if !abacSubjectMatches(p, a) {
			continue
		}
		verbs := []string{"*"}
		if p.Readonly {
			verbs = []string{VerbGet, VerbList, VerbWatch}
		}
		if p.Resource != "" && (p.Namespace == "*" || p.Namespace == namespace) {
			out.ResourceRules = append(out.ResourceRules, authorization.ResourceRule{
				Verbs: verbs, APIGroups: []string{p.APIGroup}, Resources: []string{p.Resource}})
		}
		if p.NonResourcePath != "" {
			out.NonResourceRules = append(out.NonResourceRules, authorization.NonResourceRule{
				Verbs: slices.Clone(verbs), NonResourceURLs: []string{p.NonResourcePath}})
		}
	}
	return out, nil
}

// RulesFor implements RuleResolver: what a node may do depends on the pods
// bound to it, so for a node the set is Incomplete with an error wrapping
// ErrRulesUnsupported (as in Kubernetes); anyone else gets no rules.
func (z *NodeAuthorizer) RulesFor(_ context.Context, u *authn.User, _ string) (RuleSet, error) {
	if _, ok := NodeName(u); ok {
		return RuleSet{Incomplete: true}, fmt.Errorf("node authorizer %w", ErrRulesUnsupported)
	}
	return RuleSet{}, nil
}

// RulesFor implements RuleResolver: a SubjectAccessReview webhook answers
// single requests only, so the set is always Incomplete with an error
// wrapping ErrRulesUnsupported, as in Kubernetes.
func (w *WebhookAuthorizer) RulesFor(context.Context, *authn.User, string) (RuleSet, error) {
	return RuleSet{Incomplete: true}, fmt.Errorf("webhook authorizer %w", ErrRulesUnsupported)
}

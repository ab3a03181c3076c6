package authz

import (
	"context"

	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/authn"
)

// AlwaysAllowAuthorizer allows every request (kube-apiserver's AlwaysAllow
// mode, for tests and single-user setups). Stateless and safe for
// concurrent use.
type AlwaysAllowAuthorizer struct{}

// AlwaysDenyAuthorizer has no opinion on any request, so a chain that
// reaches it forbids the request (kube-apiserver's AlwaysDeny mode).
// Stateless and safe for concurrent use.
type AlwaysDenyAuthorizer struct{}

var (
	_ Authorizer   = AlwaysAllowAuthorizer{}
	_ RuleResolver = AlwaysAllowAuthorizer{}
	_ Authorizer   = AlwaysDenyAuthorizer{}
	_ RuleResolver = AlwaysDenyAuthorizer{}
)

// AlwaysAllow returns the authorizer that allows everything.
func AlwaysAllow() AlwaysAllowAuthorizer { return AlwaysAllowAuthorizer{} }

// AlwaysDeny returns the authorizer that allows nothing.
func AlwaysDeny() AlwaysDenyAuthorizer { return AlwaysDenyAuthorizer{} }

// Authorize implements Authorizer: always Allow.
func (AlwaysAllowAuthorizer) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// RulesFor implements RuleResolver: "*" on every resource and path.
func (AlwaysAllowAuthorizer) RulesFor(context.Context, *authn.User, string) (RuleSet, error) {
	return RuleSet{
		ResourceRules:    []authorization.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		NonResourceRules: []authorization.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}, nil
}

// Authorize implements Authorizer: always NoOpinion, with Kubernetes'
// reason "Everything is forbidden.".
func (AlwaysDenyAuthorizer) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionNoOpinion, "Everything is forbidden.", nil
}

// RulesFor implements RuleResolver: no rules, complete.
func (AlwaysDenyAuthorizer) RulesFor(context.Context, *authn.User, string) (RuleSet, error) {
	return RuleSet{}, nil
}

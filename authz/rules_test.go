package authz

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/orkit/orkit/api/authorization"
	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rr(verbs, groups, resources, names []string) authorization.ResourceRule {
	return authorization.ResourceRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func nrr(verbs, urls []string) authorization.NonResourceRule {
	return authorization.NonResourceRule{Verbs: verbs, NonResourceURLs: urls}
}

func l(s ...string) []string { return s }

func TestRBACRulesFor(t *testing.T) {
	podReader := rr(l("get", "list", "watch"), l(""), l("pods"), nil)
	tests := []struct {
		name      string
		user      *authn.User
		ns        string
		want      RuleSet
		wantErrIn string
	}{
		{name: "cluster binding by user, any namespace", user: &authn.User{Name: "carol"}, ns: "prod",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{podReader}}},
		{name: "cluster binding by group", user: &authn.User{Name: "rita", Groups: l("readers")}, ns: "dev",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{podReader}}},
		{name: "role and cluster role bound in the namespace", user: &authn.User{Name: "alice"}, ns: "dev",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{
				rr(l("create", "update"), l("apps"), l("deployments"), nil), podReader}}},
		{name: "namespace bindings do not leak into other namespaces", user: &authn.User{Name: "alice"}, ns: "prod"},
		{name: "empty namespace gives cluster-wide rules only", user: &authn.User{Name: "alice"}, ns: ""},
		{name: "service account subject defaults to the binding namespace",
			user: &authn.User{Name: "system:serviceaccount:dev:builder"}, ns: "dev",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{rr(l("update", "patch"), l("*"), l("*/scale"), nil)}}},
		{name: "resource names are kept", user: &authn.User{Name: "erin"}, ns: "dev",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{rr(l("get", "update"), l(""), l("configmaps"), l("app-config"))}}},
		{name: "non-resource rules from cluster bindings", user: &authn.User{Name: "mo", Groups: l("monitors")}, ns: "dev",
			want: RuleSet{NonResourceRules: []authorization.NonResourceRule{nrr(l("get"), l("/healthz", "/healthz/*", "/metrics"))}}},
		{name: "binding to a missing role is reported, the rest listed", user: &authn.User{Name: "dave"}, ns: "dev",
			wantErrIn: `clusterrole.rbac.authorization.k8s.io "gone" not found`},
		{name: "nil user", user: nil, ns: "dev"},
	}
	z := RBAC(testRBACPolicy())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := z.RulesFor(context.Background(), tt.user, tt.ns)
			if tt.wantErrIn != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErrIn)
				assert.True(t, errors.Is(err, ErrNotFound))
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRBACRulesForDoesNotAliasRoles(t *testing.T) {
	p := testRBACPolicy()
	got, err := RBAC(p).RulesFor(context.Background(), &authn.User{Name: "carol"}, "x")
	require.NoError(t, err)
	got.ResourceRules[0].Verbs[0] = "delete"
	assert.Equal(t, "get", p.ClusterRoles[0].Rules[0].Verbs[0])
}

func TestABACRulesFor(t *testing.T) {
	z, err := ReadABAC("policy", strings.NewReader(abacFile))
	require.NoError(t, err)
	tests := []struct {
		name string
		user *authn.User
		ns   string
		want RuleSet
	}{
		{name: "wildcards", user: &authn.User{Name: "alice"}, ns: "any",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{rr(l("*"), l("*"), l("*"), nil)},
				NonResourceRules: []authorization.NonResourceRule{nrr(l("*"), l("*"))}}},
		{name: "readonly in its namespace, and the group's path", user: &authn.User{Name: "bob", Groups: l("system:authenticated")}, ns: "projectCaribou",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{rr(l("get", "list", "watch"), l(""), l("pods"), nil)},
				NonResourceRules: []authorization.NonResourceRule{nrr(l("get", "list", "watch"), l("/version"))}}},
		{name: "other namespace", user: &authn.User{Name: "bob"}, ns: "other"},
		{name: "user * with group", user: &authn.User{Name: "dan", Groups: l("deployers")}, ns: "dev",
			want: RuleSet{ResourceRules: []authorization.ResourceRule{rr(l("*"), l("apps"), l("deployments"), nil)}}},
		{name: "nobody", user: &authn.User{Name: "zed"}, ns: "dev"},
		{name: "nil user", ns: "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := z.RulesFor(context.Background(), tt.user, tt.ns)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestChainRulesFor(t *testing.T) {
	webhook, err := Webhook(Config{URL: "https://127.0.0.1:1/authorize"})
	require.NoError(t, err)
	node := Node(testGraph())
	admin := &authn.User{Name: "admin", Groups: l(authn.GroupMasters, authn.GroupAuthenticated)}
	bob := &authn.User{Name: "bob", Groups: l(authn.GroupAuthenticated)}
	kubelet := &authn.User{Name: "system:node:n1", Groups: l(NodesGroup, authn.GroupAuthenticated)}
	all := rr(l("*"), l("*"), l("*"), nil)
	allPaths := nrr(l("*"), l("*"))
	tests := []struct {
		name           string
		chain          *ChainAuthorizer
		user           *authn.User
		wantResources  []authorization.ResourceRule
		wantPaths      int // how many non-resource rules
		wantIncomplete bool
		wantErrIn      string
	}{
		{name: "masters gets everything once, though cluster-admin grants it too",
			chain: Chain(Masters(), node, RBAC(BootstrapPolicy())), user: admin,
			wantResources: []authorization.ResourceRule{all,
				rr(l("create"), l("authorization.k8s.io"), l("selfsubjectaccessreviews", "selfsubjectrulesreviews"), nil),
				rr(l("create"), l("authentication.k8s.io"), l("selfsubjectreviews"), nil)},
			wantPaths: 3},
		{name: "an ordinary user gets the discovery rules", chain: Chain(Masters(), node, RBAC(BootstrapPolicy())), user: bob,
			wantResources: []authorization.ResourceRule{
				rr(l("create"), l("authorization.k8s.io"), l("selfsubjectaccessreviews", "selfsubjectrulesreviews"), nil),
				rr(l("create"), l("authentication.k8s.io"), l("selfsubjectreviews"), nil)},
			wantPaths: 2},
		{name: "a node's rules are incomplete", chain: Chain(Masters(), node, RBAC(BootstrapPolicy())), user: kubelet,
			wantResources: []authorization.ResourceRule{
				rr(l("create"), l("authorization.k8s.io"), l("selfsubjectaccessreviews", "selfsubjectrulesreviews"), nil),
				rr(l("create"), l("authentication.k8s.io"), l("selfsubjectreviews"), nil),
				// system:nodes: kubelet client certificate requests and their renewal
				rr(l("create", "get", "list", "watch"), l("certificates.k8s.io"), l("certificatesigningrequests"), nil),
				rr(l("create"), l("certificates.k8s.io"), l("certificatesigningrequests/selfnodeclient"), nil)},
			wantPaths: 2, wantIncomplete: true, wantErrIn: "node authorizer does not support user rule resolution"},
		{name: "a webhook makes every answer incomplete", chain: Chain(Masters(), webhook), user: admin,
			wantResources: []authorization.ResourceRule{all}, wantPaths: 1,
			wantIncomplete: true, wantErrIn: "webhook authorizer does not support user rule resolution"},
		{name: "an authorizer without RulesFor makes it incomplete",
			chain: Chain(AuthorizerFunc(func(context.Context, Attributes) (Decision, string, error) { return DecisionNoOpinion, "", nil })),
			user:  bob, wantIncomplete: true, wantErrIn: "does not support user rule resolution"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.chain.RulesFor(context.Background(), tt.user, "default")
			if tt.wantErrIn != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErrIn)
				assert.ErrorIs(t, err, ErrRulesUnsupported)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantResources, got.ResourceRules)
			assert.Len(t, got.NonResourceRules, tt.wantPaths, "%v", got.NonResourceRules)
			if tt.wantPaths > 0 && tt.user == admin {
				assert.Equal(t, allPaths, got.NonResourceRules[0])
			}
			assert.Equal(t, tt.wantIncomplete, got.Incomplete)
		})
	}
}

func TestAlways(t *testing.T) {
	ctx := context.Background()
	a := res(&authn.User{Name: "x"}, "delete", "ns", "", "pods", "", "p")
	d, _, err := AlwaysAllow().Authorize(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)
	d, reason, err := AlwaysDeny().Authorize(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Equal(t, "Everything is forbidden.", reason)

	got, err := Chain(AlwaysDeny(), AlwaysAllow()).RulesFor(ctx, &authn.User{Name: "x"}, "ns")
	require.NoError(t, err)
	assert.Equal(t, RuleSet{ResourceRules: []authorization.ResourceRule{rr(l("*"), l("*"), l("*"), nil)},
		NonResourceRules: []authorization.NonResourceRule{nrr(l("*"), l("*"))}}, got)
}

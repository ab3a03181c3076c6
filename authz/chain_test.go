package authz

import (
	"context"
	"errors"
	"testing"

	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
)

func decide(d Decision, reason string, err error) Authorizer {
	return AuthorizerFunc(func(context.Context, Attributes) (Decision, string, error) { return d, reason, err })
}

func TestChain(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name       string
		auths      []Authorizer
		user       *authn.User
		want       Decision
		wantReason string
		wantErr    error
	}{
		{"first allow wins", []Authorizer{decide(DecisionNoOpinion, "a", nil), decide(DecisionAllow, "b", nil), decide(DecisionDeny, "c", nil)},
			nil, DecisionAllow, "b", nil},
		{"deny stops", []Authorizer{decide(DecisionDeny, "no", nil), decide(DecisionAllow, "yes", nil)}, nil, DecisionDeny, "no", nil},
		{"all no opinion", []Authorizer{decide(DecisionNoOpinion, "a", nil), nil, decide(DecisionNoOpinion, "", nil), decide(DecisionNoOpinion, "c", nil)},
			nil, DecisionNoOpinion, "a; c", nil},
		{"error goes on", []Authorizer{decide(DecisionNoOpinion, "", boom), decide(DecisionAllow, "ok", nil)}, nil, DecisionAllow, "ok", nil},
		{"error kept when undecided", []Authorizer{decide(DecisionNoOpinion, "w", boom)}, nil, DecisionNoOpinion, "w", boom},
		{"empty chain", nil, nil, DecisionNoOpinion, "", nil},
		{"deciding error kept", []Authorizer{decide(DecisionNoOpinion, "", errors.New("other")), decide(DecisionDeny, "x", boom)},
			nil, DecisionDeny, "x", boom},
		{"masters before deny", []Authorizer{Masters(), decide(DecisionDeny, "no", nil)},
			&authn.User{Name: "root", Groups: []string{"system:masters"}}, DecisionAllow, "", nil},
		{"masters no opinion for others", []Authorizer{Masters(), decide(DecisionDeny, "no", nil)},
			&authn.User{Name: "bob"}, DecisionDeny, "no", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := Chain(tt.auths...).Authorize(context.Background(), Attributes{User: tt.user, Verb: "get"})
			assert.Equal(t, tt.want, d)
			assert.Equal(t, tt.wantReason, reason)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestForbiddenMessage(t *testing.T) {
	bob := &authn.User{Name: "bob"}
	tests := []struct {
		name   string
		attrs  Attributes
		reason string
		want   string
	}{
		{"list namespaced", res(bob, "list", "default", "", "pods", "", ""), "",
			`pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`},
		{"get named", res(bob, "get", "x", "", "pods", "", "web-1"), "",
			`pods "web-1" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "x"`},
		{"with reason", res(bob, "get", "x", "", "pods", "", "web-1"), "no relationship found",
			`pods "web-1" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "x": no relationship found`},
		{"subresource", res(bob, "create", "default", "", "pods", "binding", "web-1"), "",
			`pods "web-1" is forbidden: User "bob" cannot create resource "pods/binding" in API group "" in the namespace "default"`},
		{"group qualified", res(bob, "update", "default", "apps", "deployments", "scale", "web"), "",
			`deployments.apps "web" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "default"`},
		{"cluster scope", res(bob, "list", "", "", "nodes", "", ""), "",
			`nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope`},
		{"cluster scope named", res(bob, "delete", "", "rbac.authorization.k8s.io", "clusterroles", "", "admin"), "",
			`clusterroles.rbac.authorization.k8s.io "admin" is forbidden: User "bob" cannot delete resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`},
		{"non-resource", nonRes(bob, "get", "/metrics"), "",
			`forbidden: User "bob" cannot get path "/metrics"`},
		{"anonymous", nonRes(&authn.User{Name: "system:anonymous"}, "get", "/api"), "",
			`forbidden: User "system:anonymous" cannot get path "/api"`},
		{"no user", nonRes(nil, "get", "/api"), "", `forbidden: User "" cannot get path "/api"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ForbiddenMessage(tt.attrs, tt.reason))
		})
	}
}

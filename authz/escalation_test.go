package authz

import (
	"context"
	"errors"
	"testing"

	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// escalationPolicy: alice holds deployer (Role in dev) and pod-reader (a
// ClusterRole bound in dev); carol and group readers hold pod-reader
// cluster-wide; monitors hold non-resource URLs cluster-wide; dave's only
// binding refers to a missing role; erin may "escalate" roles in dev and
// "bind" the ClusterRole view in dev.
func escalationPolicy() *Policy {
	p := testRBACPolicy()
	p.ClusterRoles = append(p.ClusterRoles,
		&rbac.ClusterRole{ObjectMeta: om("", "escalator"), Rules: rules(
			verbs("escalate").groups(rbac.GroupName).resources("roles"),
			verbs("bind").groups(rbac.GroupName).resources("clusterroles").names("view"))},
		&rbac.ClusterRole{ObjectMeta: om("", "named-escalator"), Rules: rules(
			verbs("escalate").groups(rbac.GroupName).resources("clusterroles").names("mine"))})
	p.RoleBindings = append(p.RoleBindings,
		&rbac.RoleBinding{ObjectMeta: om("dev", "erin-escalate"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "escalator"},
			Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "erin"}}})
	p.ClusterRoleBindings = append(p.ClusterRoleBindings,
		&rbac.ClusterRoleBinding{ObjectMeta: om("", "frank-named"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "named-escalator"},
			Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "frank"}}})
	return p
}

func TestConfirmNoEscalation(t *testing.T) {
	z := RBAC(escalationPolicy())
	alice := &authn.User{Name: "alice", Groups: []string{"devs", authn.GroupAuthenticated}}
	podRead := rules(verbs("get", "list").groups("").resources("pods"))
	secrets := rules(verbs("get").groups("").resources("secrets"))
	tests := []struct {
		name    string
		user    *authn.User
		ns      string
		want    []rbac.PolicyRule
		wantErr string // "" for allowed
	}{
		{"held through a RoleBinding of a ClusterRole", alice, "dev", podRead, ""},
		{"held through a Role", alice, "dev", rules(verbs("create").groups("apps").resources("deployments")), ""},
		{"namespace grants do not count elsewhere", alice, "prod", podRead,
			`user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:` +
				"\n" + `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{"namespace grants do not count cluster-wide", alice, "", podRead, "not currently held"},
		{"held cluster-wide counts in a namespace", &authn.User{Name: "carol"}, "anywhere", podRead, ""},
		{"held through a group", &authn.User{Name: "rita", Groups: []string{"readers"}}, "", podRead, ""},
		{"not held", alice, "dev", secrets,
			"not currently held:\n" + `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`},
		{"partly held lists only what is missing", alice, "dev", rules(verbs("get", "delete").groups("").resources("pods", "secrets")),
			"not currently held:\n" + `{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}` + "\n" +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}`},
		{"non-resource URLs held", &authn.User{Name: "m", Groups: []string{"monitors"}}, "", rules(verbs("get").urls("/healthz/ready")), ""},
		{"full authority is not held by a namespace user", alice, "dev", FullAuthority,
			"not currently held:\n" + `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}` + "\n" + `{NonResourceURLs:["*"], Verbs:["*"]}`},
		{"nothing to grant", &authn.User{Name: "nobody"}, "dev", nil, ""},
		{"a broken binding is named", &authn.User{Name: "dave"}, "", podRead, "resolution errors: [clusterrole.rbac.authorization.k8s.io \"gone\" not found]"},
		{"no user", nil, "dev", podRead, "no user on the request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ConfirmNoEscalation(z, tt.user, tt.ns, tt.want)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrEscalation))
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestEscalationAllowed(t *testing.T) {
	assert.True(t, EscalationAllowed(&authn.User{Name: "admin", Groups: []string{authn.GroupMasters}}))
	assert.False(t, EscalationAllowed(&authn.User{Name: "admin", Groups: []string{"admins"}}))
	assert.False(t, EscalationAllowed(nil))
}

func TestRoleEscalationAuthorized(t *testing.T) {
	z := RBAC(escalationPolicy())
	erin, frank := &authn.User{Name: "erin"}, &authn.User{Name: "frank"}
	tests := []struct {
		name                string
		a                   Authorizer
		user                *authn.User
		resource, ns, named string
		want                bool
	}{
		{"escalate on roles in the namespace", z, erin, "roles", "dev", "", true},
		{"not in another namespace", z, erin, "roles", "prod", "", false},
		{"escalate on roles is not on clusterroles", z, erin, "clusterroles", "", "", false},
		{"a named grant covers its name", z, frank, "clusterroles", "", "mine", true},
		{"a named grant does not cover create (no name)", z, frank, "clusterroles", "", "", false},
		{"a named grant does not cover another name", z, frank, "clusterroles", "", "yours", false},
		{"other resources never", AlwaysAllow(), erin, "rolebindings", "dev", "", false},
		{"AlwaysAllow allows", AlwaysAllow(), erin, "roles", "dev", "", true},
		{"masters allowed", Masters(), &authn.User{Name: "a", Groups: []string{authn.GroupMasters}}, "clusterroles", "", "", true},
		{"no authorizer", nil, erin, "roles", "dev", "", false},
		{"no user", z, nil, "roles", "dev", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RoleEscalationAuthorized(context.Background(), tt.a, tt.user, tt.resource, tt.ns, tt.named))
		})
	}
}

func TestBindingAuthorized(t *testing.T) {
	z := RBAC(escalationPolicy())
	erin := &authn.User{Name: "erin"}
	view := rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "ClusterRole", Name: "view"}
	tests := []struct {
		name string
		a    Authorizer
		user *authn.User
		ref  rbac.RoleRef
		ns   string
		want bool
	}{
		{"bind on the named ClusterRole in the namespace", z, erin, view, "dev", true},
		{"not in another namespace", z, erin, view, "prod", false},
		{"not cluster-wide (a ClusterRoleBinding)", z, erin, view, "", false},
		{"not another ClusterRole", z, erin, rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "ClusterRole", Name: "edit"}, "dev", false},
		{"not a Role of the same name", z, erin, rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "Role", Name: "view"}, "dev", false},
		{"unknown kind", AlwaysAllow(), erin, rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "Group", Name: "view"}, "dev", false},
		{"AlwaysAllow allows", AlwaysAllow(), erin, view, "", true},
		{"no authorizer", nil, erin, view, "dev", false},
		{"no user", z, nil, view, "dev", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, BindingAuthorized(context.Background(), tt.a, tt.user, tt.ref, tt.ns))
		})
	}
}

func TestPolicyRulesForCountsRoleBindingURLs(t *testing.T) {
	p := escalationPolicy()
	p.RoleBindings = append(p.RoleBindings, &rbac.RoleBinding{ObjectMeta: om("dev", "urls"),
		RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "health"}, Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "gina"}}})
	got, err := RBAC(p).PolicyRulesFor(&authn.User{Name: "gina"}, "dev")
	require.NoError(t, err)
	assert.Equal(t, rules(verbs("get").urls("/healthz", "/healthz/*", "/metrics")), got)
	got, err = RBAC(p).PolicyRulesFor(&authn.User{Name: "gina"}, "")
	require.NoError(t, err)
	assert.Empty(t, got)
}

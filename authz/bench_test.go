package authz

import (
	"context"
	"fmt"
	"testing"

	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
)

// BenchmarkRBACAuthorize measures a denied namespaced request (the worst
// case: every binding is visited) against the bootstrap policy plus 1000
// namespaced RoleBindings for other users.
func BenchmarkRBACAuthorize(b *testing.B) {
	p := BootstrapPolicy()
	p.Roles = append(p.Roles, &rbac.Role{ObjectMeta: om("default", "r"), Rules: rules(verbs("get").groups("").resources("pods"))})
	for i := range 1000 {
		p.RoleBindings = append(p.RoleBindings, &rbac.RoleBinding{ObjectMeta: om("default", fmt.Sprint("b", i)),
			RoleRef:  rbac.RoleRef{Kind: "Role", Name: "r"},
			Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: fmt.Sprint("user", i)}}})
	}
	z := RBAC(p)
	a := res(&authn.User{Name: "bob", Groups: []string{authn.GroupAuthenticated}}, "delete", "default", "", "pods", "", "web")
	b.ReportAllocs()
	for b.Loop() {
		if d, _, _ := z.Authorize(context.Background(), a); d == DecisionAllow {
			b.Fatal("allowed")
		}
	}
}

// BenchmarkNodeAuthorizeSecret measures a node reading a secret its pod uses.
func BenchmarkNodeAuthorizeSecret(b *testing.B) {
	z := Node(testGraph())
	a := res(&authn.User{Name: "system:node:n1", Groups: []string{NodesGroup}}, "get", "default", "", "secrets", "", "env-secret")
	b.ReportAllocs()
	for b.Loop() {
		if d, _, _ := z.Authorize(context.Background(), a); d != DecisionAllow {
			b.Fatal("denied")
		}
	}
}

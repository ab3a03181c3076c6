package authz_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
)

// The chain a server builds: superusers first, then RBAC over the
// bootstrap policy. A request nobody allows gets Kubernetes' 403 message.
func ExampleChain() {
	chain := authz.Chain(authz.Masters(), authz.RBAC(authz.BootstrapPolicy()))
	bob := &authn.User{Name: "bob", Groups: []string{authn.GroupAuthenticated}}

	version := authz.Attributes{User: bob, Verb: "get", Path: "/version"}
	d, reason, _ := chain.Authorize(context.Background(), version)
	fmt.Println(d, reason)

	pods := authz.Attributes{User: bob, Verb: "list", Namespace: "default", APIVersion: "v1",
		Resource: "pods", ResourceRequest: true}
	d, reason, _ = chain.Authorize(context.Background(), pods)
	fmt.Println(d)
	fmt.Println(authz.ForbiddenMessage(pods, reason))
	// Output:
	// Allow RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"
	// NoOpinion
	// pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"
}

// An ABAC policy file, one JSON object per line.
func ExampleReadABAC() {
	policy := `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"alice","namespace":"*","resource":"*","apiGroup":"*","readonly":true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"namespace":"x","resource":"pods"}}`
	_, err := authz.ReadABAC("policy.jsonl", strings.NewReader(policy))
	fmt.Println(err)

	z, _ := authz.ReadABAC("policy.jsonl", strings.NewReader(strings.Split(policy, "\n")[0]))
	alice := &authn.User{Name: "alice"}
	for _, verb := range []string{"get", "delete"} {
		d, _, _ := z.Authorize(context.Background(), authz.Attributes{User: alice, Verb: verb,
			Namespace: "x", Resource: "pods", Name: "p", ResourceRequest: true})
		fmt.Println(verb, d)
	}
	// Output:
	// policy.jsonl:2: spec names neither user nor group, so it would match nobody
	// get Allow
	// delete NoOpinion
}

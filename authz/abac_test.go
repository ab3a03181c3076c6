package authz

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const abacFile = `# orkit test policy
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"alice","namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"bob","namespace":"projectCaribou","resource":"pods","apiGroup":"","readonly":true}}

{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group":"system:authenticated","readonly":true,"nonResourcePath":"/version"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group":"ops","readonly":true,"nonResourcePath":"/healthz/*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"*","group":"deployers","namespace":"dev","resource":"deployments","apiGroup":"apps"}}
`

func TestABAC(t *testing.T) {
	p := filepath.Join(t.TempDir(), "policy.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(abacFile), 0o600))
	z, err := ABAC(p)
	require.NoError(t, err)
	assert.Equal(t, 5, z.Len())

	alice := &authn.User{Name: "alice"}
	bob := &authn.User{Name: "bob", Groups: []string{"system:authenticated"}}
	ops := &authn.User{Name: "olga", Groups: []string{"ops"}}
	dep := &authn.User{Name: "dan", Groups: []string{"deployers"}}
	tests := []struct {
		name  string
		attrs Attributes
		want  Decision
	}{
		{"alice anything", res(alice, "delete", "x", "apps", "deployments", "", "d"), DecisionAllow},
		{"alice any path", nonRes(alice, "post", "/anything"), DecisionAllow},
		{"bob reads pods", res(bob, "list", "projectCaribou", "", "pods", "", ""), DecisionAllow},
		{"bob reads pod subresource", res(bob, "get", "projectCaribou", "", "pods", "log", "p"), DecisionAllow},
		{"bob readonly", res(bob, "create", "projectCaribou", "", "pods", "", ""), DecisionNoOpinion},
		{"bob other namespace", res(bob, "get", "other", "", "pods", "", "p"), DecisionNoOpinion},
		{"bob other group", res(bob, "get", "projectCaribou", "apps", "pods", "", "p"), DecisionNoOpinion},
		{"bob version", nonRes(bob, "get", "/version"), DecisionAllow},
		{"bob version post", nonRes(bob, "post", "/version"), DecisionNoOpinion},
		{"bob resource policy is not a path", nonRes(bob, "get", "/api"), DecisionNoOpinion},
		{"ops healthz prefix", nonRes(ops, "get", "/healthz/etcd"), DecisionAllow},
		{"ops not other path", nonRes(ops, "get", "/metrics"), DecisionNoOpinion},
		{"user * and group", res(dep, "update", "dev", "apps", "deployments", "", "d"), DecisionAllow},
		{"user * still needs group", res(bob, "update", "dev", "apps", "deployments", "", "d"), DecisionNoOpinion},
		{"no user", res(nil, "get", "projectCaribou", "", "pods", "", ""), DecisionNoOpinion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := z.Authorize(context.Background(), tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d)
			if d == DecisionNoOpinion {
				assert.Equal(t, "No policy matched.", reason)
			}
		})
	}
}

func TestABACMalformed(t *testing.T) {
	good := `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"a","resource":"*"}}`
	tests := []struct {
		name, content string
		wantLine      int
		wantMsg       string
	}{
		{"not JSON", good + "\n{oops\n", 2, "not a policy object"},
		{"wrong version", good + "\n\n" + `{"apiVersion":"v1","kind":"Policy","spec":{"user":"a"}}`, 3, "apiVersion"},
		{"legacy unversioned", `{"user":"a","resource":"*"}`, 1, "unknown field"},
		{"typo field", `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"a","namesapce":"x"}}`, 1, "unknown field"},
		{"matches nobody", `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"resource":"*"}}`, 1, "neither user nor group"},
		{"two objects", good + good, 1, "more than one"},
		{"wrong type", `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"a","readonly":"yes"}}`, 1, "not a policy object"},
		{"overlong line", good + "\n" + strings.Repeat(" ", MaxPolicyLine+1) + "\n", 2, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, err := ReadABAC("policy.jsonl", strings.NewReader(tt.content))
			assert.Nil(t, z)
			var le *LineError
			require.True(t, errors.As(err, &le), "%v", err)
			assert.ErrorIs(t, err, ErrInvalidPolicy)
			assert.Equal(t, tt.wantLine, le.Line)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Contains(t, err.Error(), "policy.jsonl:")
		})
	}
	_, err := ABAC(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorIs(t, err, ErrInvalidPolicy)
}

// FuzzABAC checks the policy loader never panics and fails only with a
// *LineError.
func FuzzABAC(f *testing.F) {
	f.Add(abacFile)
	f.Add("{}\n#x\n")
	f.Add(`{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group":"*"}}`)
	f.Fuzz(func(t *testing.T, content string) {
		z, err := ReadABAC("fuzz", strings.NewReader(content))
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *LineError", err)
			}
			return
		}
		_, _, _ = z.Authorize(context.Background(), nonRes(&authn.User{Name: "x"}, "get", "/"))
	})
}

func TestABACOversized(t *testing.T) {
	line := `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user":"a"}}` + "\n"
	big := strings.Repeat(line, MaxPolicyFile/len(line)+1)
	_, err := ReadABAC("big", strings.NewReader(big))
	assert.ErrorIs(t, err, ErrInvalidPolicy)
	assert.Contains(t, err.Error(), "larger than")
}

package apiserver_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// row matches one line of `kubectl auth can-i --list`: the Resources,
// Non-Resource URLs, Resource Names and Verbs columns.
func row(resources, urls, names, verbs string) *regexp.Regexp {
	col := func(s string) string { return regexp.QuoteMeta(s) }
	lead := `(?m)^`
	if resources == "" {
		lead += `\s+`
	} else {
		lead += col(resources) + `\s+`
	}
	return regexp.MustCompile(lead + col(urls) + `\s+` + col(names) + `\s+` + col(verbs) + `\s*$`)
}

// TestKubectlAuthCanIList checks `kubectl auth can-i --list` against the
// table Kubernetes prints: everything for the admin, the Role's rules in
// its namespace (and only there) for a token user. (Incomplete answers,
// from the Webhook authorizer, are checked in controlplane.)
func TestKubectlAuthCanIList(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, devRBAC, "apply", "-f", "-")
	mustKubectl(t, c.admin, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- apiGroups: [""]
  resources: [nodes]
  resourceNames: [node-1]
  verbs: [get]
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: developers-node-reader}
subjects: [{kind: Group, name: developers, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: node-reader, apiGroup: rbac.authorization.k8s.io}
`, "apply", "-f", "-")

	out := mustKubectl(t, c.admin, "", "auth", "can-i", "--list")
	t.Logf("admin:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Greater(t, len(lines), 3)
	assert.Regexp(t, `^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$`, lines[0])
	assert.Regexp(t, row("*.*", "[]", "[]", "[*]"), lines[1])
	assert.Regexp(t, row("", "[*]", "[]", "[*]"), lines[2])
	assert.Regexp(t, row("selfsubjectrulesreviews.authorization.k8s.io", "[]", "[]", "[create]"), out)
	assert.Regexp(t, row("", "[/version]", "[]", "[get]"), out)
	assert.Equal(t, 1, strings.Count(out, "*.*"), "the Masters and cluster-admin grants are listed once")

	out, errOut, err := kubectl(t, c.dev, "", "-n", "team", "auth", "can-i", "--list")
	require.NoError(t, err, errOut)
	t.Logf("dev in team:\n%s", out)
	assert.Empty(t, errOut, "RBAC lists every rule: no incomplete warning")
	assert.Regexp(t, row("configmaps", "[]", "[]", "[get list watch create update patch delete]"), out)
	assert.Regexp(t, row("deployments.apps/scale", "[]", "[]", "[get list watch create update patch]"), out)
	assert.Regexp(t, row("deployments.apps", "[]", "[]", "[get list watch create update patch]"), out)
	assert.Regexp(t, row("nodes", "[]", "[node-1]", "[get]"), out, "cluster-wide grant through the user's group")
	assert.Regexp(t, row("", "[/metrics]", "[]", "[get]"), out)
	assert.Regexp(t, row("", "[/api/*]", "[]", "[get]"), out, "system:discovery through system:authenticated")
	assert.NotContains(t, out, "*.*")

	out = mustKubectl(t, c.dev, "", "-n", "kube-system", "auth", "can-i", "--list")
	assert.NotContains(t, out, "configmaps", "the Role grants nothing outside its namespace")
	assert.Regexp(t, row("nodes", "[]", "[node-1]", "[get]"), out)

	// The raw review: both lists, complete, no evaluation error.
	out = mustKubectl(t, c.dev, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"team"}}`,
		"create", "-f", "-", "-o", "json")
	var review struct {
		Status struct {
			ResourceRules    []map[string]any `json:"resourceRules"`
			NonResourceRules []map[string]any `json:"nonResourceRules"`
			Incomplete       *bool            `json:"incomplete"`
			EvaluationError  string           `json:"evaluationError"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &review))
	require.NotNil(t, review.Status.Incomplete)
	assert.False(t, *review.Status.Incomplete)
	assert.Empty(t, review.Status.EvaluationError)
	assert.Len(t, review.Status.ResourceRules, 5)
	assert.NotEmpty(t, review.Status.NonResourceRules)

	_, errOut, err = kubectl(t, c.dev, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}`,
		"create", "-f", "-", "-o", "json")
	require.Error(t, err)
	assert.Contains(t, errOut, "no namespace on request")
}

package rbac

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRuleAllows(t *testing.T) {
	pods := PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	tests := []struct {
		name                                string
		rule                                PolicyRule
		verb, group, resource, sub, objName string
		want                                bool
	}{
		{"exact", pods, "get", "", "pods", "", "p1", true},
		{"list without name", pods, "list", "", "pods", "", "", true},
		{"verb not granted", pods, "delete", "", "pods", "", "p1", false},
		{"other group", pods, "get", "apps", "pods", "", "p1", false},
		{"other resource", pods, "get", "", "services", "", "", false},
		{"subresource not implied", pods, "get", "", "pods", "log", "p1", false},
		{"verb wildcard", PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}},
			"deletecollection", "", "pods", "", "", true},
		{"group wildcard", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"deployments"}},
			"get", "apps", "deployments", "", "", true},
		{"resource wildcard covers subresource", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}},
			"get", "", "pods", "log", "p", true},
		{"explicit subresource", PolicyRule{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"pods/binding"}},
			"create", "", "pods", "binding", "p", true},
		{"explicit subresource does not grant parent", PolicyRule{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"pods/binding"}},
			"create", "", "pods", "", "p", false},
		{"star slash subresource", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"apps"}, Resources: []string{"*/scale"}},
			"update", "apps", "deployments", "scale", "web", true},
		{"star slash subresource other sub", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"apps"}, Resources: []string{"*/scale"}},
			"update", "apps", "deployments", "status", "web", false},
		{"star slash subresource not parent", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"apps"}, Resources: []string{"*/scale"}},
			"update", "apps", "deployments", "", "web", false},
		{"suffix is not a subresource match", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/xscale"}},
			"get", "", "pods", "scale", "", false},
		{"resource names match", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b"}},
			"get", "", "configmaps", "", "b", true},
		{"resource names exclude others", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}},
			"get", "", "configmaps", "", "c", false},
		{"resource names exclude unnamed", PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}},
			"list", "", "configmaps", "", "", false},
		{"no api groups matches nothing", PolicyRule{Verbs: []string{"get"}, Resources: []string{"pods"}},
			"get", "", "pods", "", "", false},
		{"non-resource rule never matches resources", PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			"get", "", "pods", "", "", false},
		{"empty rule", PolicyRule{}, "get", "", "pods", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RuleAllows(tt.rule, tt.verb, tt.group, tt.resource, tt.sub, tt.objName))
		})
	}
}

func TestRuleAllowsNonResource(t *testing.T) {
	tests := []struct {
		name       string
		urls       []string
		verbs      []string
		verb, path string
		want       bool
	}{
		{"exact", []string{"/healthz"}, []string{"get"}, "get", "/healthz", true},
		{"exact other path", []string{"/healthz"}, []string{"get"}, "get", "/healthz/ping", false},
		{"verb not granted", []string{"/healthz"}, []string{"get"}, "post", "/healthz", false},
		{"star all", []string{"*"}, []string{"get"}, "get", "/anything", true},
		{"prefix", []string{"/healthz/*"}, []string{"get"}, "get", "/healthz/etcd", true},
		{"prefix includes the bare slash", []string{"/healthz/*"}, []string{"get"}, "get", "/healthz/", true},
		{"prefix excludes the parent", []string{"/healthz/*"}, []string{"get"}, "get", "/healthz", false},
		{"prefix without slash", []string{"/api*"}, []string{"get"}, "get", "/apis/apps", true},
		{"verb wildcard", []string{"/version"}, []string{"*"}, "get", "/version", true},
		{"resource rule never matches urls", nil, []string{"*"}, "get", "/version", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := PolicyRule{Verbs: tt.verbs, NonResourceURLs: tt.urls}
			assert.Equal(t, tt.want, RuleAllowsNonResource(r, tt.verb, tt.path))
		})
	}
}

func TestRulesAllow(t *testing.T) {
	rules := []PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}},
	}
	assert.True(t, RulesAllow(rules, "get", "", "pods", "", "x"))
	assert.False(t, RulesAllow(rules, "list", "", "nodes", "", ""))
	assert.True(t, RulesAllowNonResource(rules, "get", "/metrics"))
	assert.False(t, RulesAllowNonResource(rules, "get", "/version"))
	assert.False(t, RulesAllow(nil, "get", "", "pods", "", ""))
}

func ExampleRuleAllows() {
	rule := PolicyRule{
		Verbs:     []string{"get", "update"},
		APIGroups: []string{"apps"},
		Resources: []string{"deployments", "*/scale"},
	}
	fmt.Println(RuleAllows(rule, "update", "apps", "deployments", "scale", "web"))
	fmt.Println(RuleAllows(rule, "update", "apps", "deployments", "status", "web"))
	// Output:
	// true
	// false
}

func ExampleRuleAllowsNonResource() {
	rule := PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/apis/*"}}
	fmt.Println(RuleAllowsNonResource(rule, "get", "/apis/apps/v1"))
	fmt.Println(RuleAllowsNonResource(rule, "get", "/api/v1"))
	// Output:
	// true
	// false
}

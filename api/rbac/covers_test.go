package rbac

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func rl(verbs, groups, resources []string) PolicyRule {
	return PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func s(v ...string) []string { return v }

func TestCovers(t *testing.T) {
	tests := []struct {
		name        string
		owner, want []PolicyRule
		covered     bool
		missing     []PolicyRule
	}{
		{"exact", []PolicyRule{rl(s("get"), s(""), s("secrets"))}, []PolicyRule{rl(s("get"), s(""), s("secrets"))}, true, nil},
		{"nothing held", nil, []PolicyRule{rl(s("get"), s(""), s("secrets"))}, false,
			[]PolicyRule{rl(s("get"), s(""), s("secrets"))}},
		{"verb missing", []PolicyRule{rl(s("get"), s(""), s("secrets"))}, []PolicyRule{rl(s("get", "list"), s(""), s("secrets"))}, false,
			[]PolicyRule{rl(s("list"), s(""), s("secrets"))}},
		{"split over two owner rules", []PolicyRule{rl(s("get"), s(""), s("pods")), rl(s("list"), s(""), s("pods"))},
			[]PolicyRule{rl(s("get", "list"), s(""), s("pods"))}, true, nil},
		{"star verbs groups resources", []PolicyRule{rl(s("*"), s("*"), s("*"))},
			[]PolicyRule{rl(s("escalate", "bind"), s("rbac.authorization.k8s.io"), s("roles", "clusterroles/status"))}, true, nil},
		{"star resource does not cover URLs", []PolicyRule{rl(s("*"), s("*"), s("*"))},
			[]PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/healthz")}}, false,
			[]PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/healthz")}}},
		{"star slash subresource", []PolicyRule{rl(s("get"), s("apps"), s("*/scale"))},
			[]PolicyRule{rl(s("get"), s("apps"), s("deployments/scale"))}, true, nil},
		{"parent does not cover subresource", []PolicyRule{rl(s("get"), s(""), s("pods"))},
			[]PolicyRule{rl(s("get"), s(""), s("pods/log"))}, false, []PolicyRule{rl(s("get"), s(""), s("pods/log"))}},
		{"named owner does not cover unnamed", []PolicyRule{{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("a")}},
			[]PolicyRule{rl(s("get"), s(""), s("secrets"))}, false, []PolicyRule{rl(s("get"), s(""), s("secrets"))}},
		{"unnamed owner covers named", []PolicyRule{rl(s("get"), s(""), s("secrets"))},
			[]PolicyRule{{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("a", "b")}}, true, nil},
		{"named owner covers a subset of names", []PolicyRule{{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("a")}},
			[]PolicyRule{{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("a", "b")}}, false,
			[]PolicyRule{{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("b")}}},
		{"URL prefix", []PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/apis/*")}},
			[]PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/apis/apps", "/api")}}, false,
			[]PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/api")}}},
		{"URL star", []PolicyRule{{Verbs: s("*"), NonResourceURLs: s("*")}},
			[]PolicyRule{{Verbs: s("get", "post"), NonResourceURLs: s("/metrics")}}, true, nil},
		{"other group", []PolicyRule{rl(s("get"), s(""), s("deployments"))},
			[]PolicyRule{rl(s("get"), s("apps"), s("deployments"))}, false, []PolicyRule{rl(s("get"), s("apps"), s("deployments"))}},
		{"empty rule grants nothing", nil, []PolicyRule{{Verbs: s("get")}}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, missing := Covers(tt.owner, tt.want)
			assert.Equal(t, tt.covered, ok)
			assert.Equal(t, tt.missing, missing)
		})
	}
}

func TestBreakdownRule(t *testing.T) {
	got := BreakdownRule(PolicyRule{Verbs: s("get", "list"), APIGroups: s("", "apps"), Resources: s("x"), ResourceNames: s("n")})
	assert.Equal(t, []PolicyRule{
		{Verbs: s("get"), APIGroups: s(""), Resources: s("x"), ResourceNames: s("n")},
		{Verbs: s("list"), APIGroups: s(""), Resources: s("x"), ResourceNames: s("n")},
		{Verbs: s("get"), APIGroups: s("apps"), Resources: s("x"), ResourceNames: s("n")},
		{Verbs: s("list"), APIGroups: s("apps"), Resources: s("x"), ResourceNames: s("n")},
	}, got)
	assert.Equal(t, []PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/a")}, {Verbs: s("get"), NonResourceURLs: s("/b")}},
		BreakdownRule(PolicyRule{Verbs: s("get"), NonResourceURLs: s("/a", "/b")}))
}

func TestCompactRules(t *testing.T) {
	in := []PolicyRule{
		rl(s("get"), s(""), s("secrets")),
		{Verbs: s("get"), NonResourceURLs: s("/x")},
		rl(s("list"), s(""), s("secrets")),
		rl(s("get"), s(""), s("secrets")),
		{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("a")},
		rl(s("get"), s("", "apps"), s("pods")),
	}
	got := CompactRules(in)
	assert.Equal(t, []PolicyRule{
		{Verbs: s("get"), NonResourceURLs: s("/x")},
		rl(s("get"), s("", "apps"), s("pods")),
		rl(s("get", "list"), s(""), s("secrets")),
		{Verbs: s("get"), APIGroups: s(""), Resources: s("secrets"), ResourceNames: s("a")},
	}, got)
	assert.Equal(t, s("get"), in[0].Verbs, "the input is not changed")
}

func TestCompactString(t *testing.T) {
	tests := []struct {
		rule PolicyRule
		want string
	}{
		{rl(s("get"), s(""), s("secrets")), `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`},
		{PolicyRule{Verbs: s("*"), NonResourceURLs: s("*")}, `{NonResourceURLs:["*"], Verbs:["*"]}`},
		{PolicyRule{Verbs: s("get", "list"), APIGroups: s("apps"), Resources: s("deployments"), ResourceNames: s("web")},
			`{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get" "list"]}`},
		{PolicyRule{}, `{}`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CompactString(tt.rule))
	}
}

// FuzzCovers checks Covers' invariants on any pair of rule lists read
// from JSON: a rule list covers itself, the missing rules are simple rules
// of the servant's breakdown that no owner rule covers, and a list holding
// every permission covers anything.
func FuzzCovers(f *testing.F) {
	f.Add([]byte(`[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]`),
		[]byte(`[{"verbs":["get","list"],"apiGroups":["","apps"],"resources":["pods","deployments/scale"],"resourceNames":["a"]}]`))
	f.Add([]byte(`[{"verbs":["*"],"nonResourceURLs":["/api/*"]}]`), []byte(`[{"verbs":["get"],"nonResourceURLs":["/api/v1","/healthz"]}]`))
	f.Add([]byte(`[{"verbs":["get"],"apiGroups":["*"],"resources":["*/scale"]}]`), []byte(`[{"verbs":["get"],"apiGroups":["x"],"resources":["y/scale","z"]}]`))
	all := []PolicyRule{
		{Verbs: s("*"), APIGroups: s("*"), Resources: s("*")},
		{Verbs: s("*"), NonResourceURLs: s("*")},
	}
	f.Fuzz(func(t *testing.T, ownerJSON, servantJSON []byte) {
		var owner, servant []PolicyRule
		if json.Unmarshal(ownerJSON, &owner) != nil || json.Unmarshal(servantJSON, &servant) != nil {
			return
		}
		if ok, missing := Covers(servant, servant); !ok {
			t.Fatalf("%v does not cover itself: missing %v", servant, missing)
		}
		ok, missing := Covers(owner, servant)
		if ok != (len(missing) == 0) {
			t.Fatalf("covered=%v with missing %v", ok, missing)
		}
		var broken []PolicyRule
		for _, r := range servant {
			broken = append(broken, BreakdownRule(r)...)
		}
		for _, m := range missing {
			if !slices.ContainsFunc(broken, func(b PolicyRule) bool { return reflect.DeepEqual(b, m) }) {
				t.Fatalf("missing %v is not in the breakdown of %v", m, servant)
			}
			if slices.ContainsFunc(owner, func(o PolicyRule) bool { return ruleCovers(o, m) }) {
				t.Fatalf("missing %v is covered by %v", m, owner)
			}
		}
		if ok, missing := Covers(all, servant); !ok {
			t.Fatalf("full authority misses %v", missing)
		}
	})
}

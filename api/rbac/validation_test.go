package rbac

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name   string
		prefix bool
		want   []string
	}{
		{"system:controller:deployment-controller", false, nil},
		{"Upper_and:colons", false, nil},
		{".", false, []string{"may not be '.'"}},
		{"..", false, []string{"may not be '..'"}},
		{".", true, nil},
		{"a/b", false, []string{"may not contain '/'"}},
		{"a/b%c", true, []string{"may not contain '/'", "may not contain '%'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ValidateName(tt.name, tt.prefix))
		})
	}
}

func TestValidatePolicyRule(t *testing.T) {
	tests := []struct {
		name       string
		rule       PolicyRule
		namespaced bool
		want       []string
	}{
		{"resource rule", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, true, nil},
		{"no verbs", PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}}, true,
			[]string{"r.verbs: Required value: verbs must contain at least one value"}},
		{"no groups or resources", PolicyRule{Verbs: []string{"get"}}, false, []string{
			"r.apiGroups: Required value: resource rules must supply at least one api group",
			"r.resources: Required value: resource rules must supply at least one resource"}},
		{"non-resource in cluster role", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, false, nil},
		{"non-resource in role", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, true,
			[]string{`r.nonResourceURLs: Invalid value: [/healthz]: namespaced rules cannot apply to non-resource URLs`}},
		{"both kinds", PolicyRule{Verbs: []string{"get"}, Resources: []string{"pods"}, NonResourceURLs: []string{"/x"}}, false,
			[]string{`r.nonResourceURLs: Invalid value: [/x]: rules cannot apply to both regular resources and non-resource URLs`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, messages(ValidatePolicyRule(tt.rule, tt.namespaced, field.NewPath("r"))))
		})
	}
}

func TestValidateClusterRoleAggregation(t *testing.T) {
	cr := &ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "agg"}, AggregationRule: &AggregationRule{}}
	assert.Equal(t, []string{"aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"},
		messages(ValidateClusterRole(cr)))
	cr.AggregationRule.ClusterRoleSelectors = []meta.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}
	assert.Empty(t, ValidateClusterRole(cr))
}

func TestValidateRoleBinding(t *testing.T) {
	valid := func() *RoleBinding {
		return &RoleBinding{
			ObjectMeta: meta.ObjectMeta{Name: "rb", Namespace: "default"},
			RoleRef:    RoleRef{APIGroup: GroupName, Kind: "Role", Name: "reader"},
			Subjects: []Subject{
				{Kind: UserKind, APIGroup: GroupName, Name: "jane"},
				{Kind: ServiceAccountKind, Name: "sa"},
			},
		}
	}
	tests := []struct {
		name   string
		mutate func(*RoleBinding)
		want   []string
	}{
		{"valid", func(*RoleBinding) {}, nil},
		{"cluster role ref", func(b *RoleBinding) { b.RoleRef.Kind = "ClusterRole" }, nil},
		{"bad ref group", func(b *RoleBinding) { b.RoleRef.APIGroup = "" },
			[]string{`roleRef.apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"`}},
		{"bad ref kind", func(b *RoleBinding) { b.RoleRef.Kind = "Pod" },
			[]string{`roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"`}},
		{"no ref name", func(b *RoleBinding) { b.RoleRef.Name = "" }, []string{"roleRef.name: Required value"}},
		{"bad ref name", func(b *RoleBinding) { b.RoleRef.Name = "a/b" },
			[]string{`roleRef.name: Invalid value: "a/b": may not contain '/'`}},
		{"subject without name", func(b *RoleBinding) { b.Subjects[0].Name = "" }, []string{"subjects[0].name: Required value"}},
		{"user without group", func(b *RoleBinding) { b.Subjects[0].APIGroup = "" },
			[]string{`subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"`}},
		{"service account with group", func(b *RoleBinding) { b.Subjects[1].APIGroup = GroupName },
			[]string{`subjects[1].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""`}},
		{"unknown subject kind", func(b *RoleBinding) { b.Subjects[0].Kind = "Robot" },
			[]string{`subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := valid()
			tt.mutate(b)
			assert.Equal(t, tt.want, messages(ValidateRoleBinding(b)))
		})
	}
}

func TestValidateClusterRoleBinding(t *testing.T) {
	b := &ClusterRoleBinding{
		ObjectMeta: meta.ObjectMeta{Name: "crb"},
		RoleRef:    RoleRef{APIGroup: GroupName, Kind: "Role", Name: "r"},
		Subjects:   []Subject{{Kind: ServiceAccountKind, Name: "sa"}},
	}
	assert.Equal(t, []string{
		`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
		`subjects[0].namespace: Required value`,
	}, messages(ValidateClusterRoleBinding(b)))
}

func TestRoleRefImmutable(t *testing.T) {
	old := &RoleBinding{ObjectMeta: meta.ObjectMeta{Name: "rb", Namespace: "ns"},
		RoleRef: RoleRef{APIGroup: GroupName, Kind: "Role", Name: "a"}}
	upd := meta.DeepCopy(old)
	upd.Subjects = []Subject{{Kind: GroupKind, APIGroup: GroupName, Name: "g"}}
	assert.Empty(t, ValidateRoleBindingUpdate(upd, old))
	upd.RoleRef.Name = "b"
	errs := ValidateRoleBindingUpdate(upd, old)
	assert.Len(t, errs, 1)
	assert.Equal(t, "roleRef", errs[0].Field)
	assert.Contains(t, errs[0].Error(), "cannot change roleRef")

	cold := &ClusterRoleBinding{ObjectMeta: meta.ObjectMeta{Name: "crb"},
		RoleRef: RoleRef{APIGroup: GroupName, Kind: "ClusterRole", Name: "a"}}
	cupd := meta.DeepCopy(cold)
	cupd.RoleRef.Name = "b"
	assert.Len(t, ValidateClusterRoleBindingUpdate(cupd, cold), 1)
}

func TestDefaults(t *testing.T) {
	b := &RoleBinding{
		RoleRef: RoleRef{Kind: "Role", Name: "r"},
		Subjects: []Subject{
			{Kind: UserKind, Name: "u"}, {Kind: GroupKind, Name: "g"},
			{Kind: ServiceAccountKind, Name: "sa"}, {Kind: UserKind, APIGroup: "other", Name: "x"},
		},
	}
	DefaultRoleBinding(b)
	assert.Equal(t, GroupName, b.RoleRef.APIGroup)
	assert.Equal(t, []string{GroupName, GroupName, "", "other"},
		[]string{b.Subjects[0].APIGroup, b.Subjects[1].APIGroup, b.Subjects[2].APIGroup, b.Subjects[3].APIGroup})
	cb := &ClusterRoleBinding{Subjects: []Subject{{Kind: GroupKind, Name: "g"}}}
	DefaultClusterRoleBinding(cb)
	assert.Equal(t, GroupName, cb.RoleRef.APIGroup)
	assert.Equal(t, GroupName, cb.Subjects[0].APIGroup)
}

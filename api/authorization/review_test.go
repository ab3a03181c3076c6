package authorization

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// What `kubectl auth can-i list pods -n default -v=8` sends, and what
// kube-apiserver answers.
const ssarRequest = `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}},"status":{"allowed":false}}`
const ssarAnswer = `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}},"status":{"allowed":true,"reason":"RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" to Group \"system:masters\""}}`

func TestReviewJSON(t *testing.T) {
	var r SelfSubjectAccessReview
	require.NoError(t, json.Unmarshal([]byte(ssarRequest), &r))
	assert.Equal(t, "list", r.Spec.ResourceAttributes.Verb)
	assert.Empty(t, ValidateSelfSubjectAccessReview(&r))

	require.NoError(t, json.Unmarshal([]byte(ssarAnswer), &r))
	out, err := json.Marshal(&r)
	require.NoError(t, err)
	assert.JSONEq(t, ssarAnswer, string(out))

	sar := `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"},"user":"jane","groups":["dev","system:authenticated"],"extra":{"scopes":["a","b"]},"uid":"42"},"status":{"allowed":false,"denied":true,"evaluationError":"x"}}`
	var s SubjectAccessReview
	require.NoError(t, json.Unmarshal([]byte(sar), &s))
	out, err = json.Marshal(&s)
	require.NoError(t, err)
	assert.JSONEq(t, sar, string(out))

	rules := `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"namespace":"default"},"status":{"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false}}`
	var rr SelfSubjectRulesReview
	require.NoError(t, json.Unmarshal([]byte(rules), &rr))
	out, err = json.Marshal(&rr)
	require.NoError(t, err)
	assert.JSONEq(t, rules, string(out))
}

func TestValidateSubjectAccessReview(t *testing.T) {
	ra := &ResourceAttributes{Verb: "get", Resource: "pods"}
	nra := &NonResourceAttributes{Path: "/healthz", Verb: "get"}
	tests := []struct {
		name string
		sar  SubjectAccessReview
		want []string
	}{
		{"resource ok", SubjectAccessReview{Spec: SubjectAccessReviewSpec{ResourceAttributes: ra, User: "u"}}, nil},
		{"group only ok", SubjectAccessReview{Spec: SubjectAccessReviewSpec{NonResourceAttributes: nra, Groups: []string{"g"}}}, nil},
		{"both", SubjectAccessReview{Spec: SubjectAccessReviewSpec{ResourceAttributes: ra, NonResourceAttributes: nra, User: "u"}},
			[]string{"spec.nonResourceAttributes: Invalid value: &{/healthz get}: cannot be specified in combination with resourceAttributes"}},
		{"neither", SubjectAccessReview{Spec: SubjectAccessReviewSpec{User: "u"}},
			[]string{"spec.resourceAttributes: Invalid value: <nil>: exactly one of nonResourceAttributes or resourceAttributes must be specified"}},
		{"no user", SubjectAccessReview{Spec: SubjectAccessReviewSpec{ResourceAttributes: ra}},
			[]string{`spec.user: Invalid value: "": at least one of user or group must be specified`}},
		{"metadata", SubjectAccessReview{ObjectMeta: meta.ObjectMeta{Name: "x"}, Spec: SubjectAccessReviewSpec{ResourceAttributes: ra, User: "u"}},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateSubjectAccessReview(&tt.sar)
			if tt.name == "metadata" {
				require.Len(t, errs, 1)
				assert.Equal(t, "metadata", errs[0].Field)
				assert.Contains(t, errs[0].Error(), "must be empty")
				return
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateLocalSubjectAccessReview(t *testing.T) {
	ok := LocalSubjectAccessReview{ObjectMeta: meta.ObjectMeta{Namespace: "ns"},
		Spec: SubjectAccessReviewSpec{ResourceAttributes: &ResourceAttributes{Namespace: "ns", Verb: "get"}, User: "u"}}
	assert.Empty(t, ValidateLocalSubjectAccessReview(&ok))

	other := ok
	other.Spec.ResourceAttributes = &ResourceAttributes{Namespace: "other", Verb: "get"}
	errs := ValidateLocalSubjectAccessReview(&other)
	require.Len(t, errs, 1)
	assert.Equal(t, `spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`, errs[0].Error())

	nonRes := ok
	nonRes.Spec = SubjectAccessReviewSpec{NonResourceAttributes: &NonResourceAttributes{Path: "/"}, User: "u"}
	errs = ValidateLocalSubjectAccessReview(&nonRes)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.nonResourceAttributes", errs[0].Field)
	assert.Contains(t, errs[0].Error(), "disallowed on this kind of request")
}

func TestValidateSelfReviews(t *testing.T) {
	assert.Len(t, ValidateSelfSubjectAccessReview(&SelfSubjectAccessReview{}), 1)
	assert.Empty(t, ValidateSelfSubjectRulesReview(&SelfSubjectRulesReview{Spec: SelfSubjectRulesReviewSpec{Namespace: "x"}}))
	assert.Len(t, ValidateSelfSubjectRulesReview(&SelfSubjectRulesReview{ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"a": "b"}}}), 1)
}

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	tests := []struct {
		resource   string
		kind       string
		namespaced bool
	}{
		{"subjectaccessreviews", "SubjectAccessReview", false},
		{"selfsubjectaccessreviews", "SelfSubjectAccessReview", false},
		{"localsubjectaccessreviews", "LocalSubjectAccessReview", true},
		{"selfsubjectrulesreviews", "SelfSubjectRulesReview", false},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			typ, ok := s.ByResource(meta.GroupVersionResource{Group: GroupName, Version: Version, Resource: tt.resource})
			require.True(t, ok)
			assert.Equal(t, tt.kind, typ.Kind.Kind)
			assert.Equal(t, tt.namespaced, typ.Namespaced)
			assert.NotNil(t, typ.Validate)
		})
	}
	obj, _, err := s.Decode([]byte(ssarRequest))
	require.NoError(t, err)
	assert.IsType(t, &SelfSubjectAccessReview{}, obj)
}

package admissionregistration

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// As kube's documentation shows a configuration (caBundle shortened).
const vwcDoc = `{
  "apiVersion": "admissionregistration.k8s.io/v1",
  "kind": "ValidatingWebhookConfiguration",
  "metadata": {"name": "pod-policy.example.com"},
  "webhooks": [{
    "name": "pod-policy.example.com",
    "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"], "scope": "Namespaced"}],
    "clientConfig": {"service": {"namespace": "example-namespace", "name": "example-service"}, "caBundle": "Y2E="},
    "admissionReviewVersions": ["v1"],
    "sideEffects": "None",
    "timeoutSeconds": 5
  }]
}`

func TestWebhookConfigurationJSONAndDefaults(t *testing.T) {
	s := scheme.New()
	Register(s)
	obj, typ, err := s.Decode([]byte(vwcDoc))
	require.NoError(t, err)
	assert.Equal(t, "validatingwebhookconfigurations", typ.Resource)
	assert.False(t, typ.Namespaced)
	c := obj.(*ValidatingWebhookConfiguration)
	assert.Equal(t, []byte("ca"), c.Webhooks[0].ClientConfig.CABundle)
	out, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, vwcDoc, string(out))
	typ.Default(obj)
	h := c.Webhooks[0]
	assert.Equal(t, Fail, *h.FailurePolicy)
	assert.Equal(t, Equivalent, *h.MatchPolicy)
	assert.Equal(t, int32(5), *h.TimeoutSeconds)
	assert.Equal(t, int32(443), *h.ClientConfig.Service.Port)
	assert.Equal(t, &meta.LabelSelector{}, h.NamespaceSelector)
	assert.Empty(t, typ.Validate(obj))
}

func TestValidateWebhookResources(t *testing.T) {
	tests := []struct {
		resources []string
		want      []string
	}{
		{[]string{"pods", "pods/status"}, nil},
		{[]string{"*", "*/scale"}, nil},
		{[]string{"pods/*", "pods/status"}, []string{`r[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`}},
		{[]string{"*/status", "pods/status"}, []string{`r[1]: Invalid value: "pods/status": if '*/status' is present, must not specify pods/status`}},
		{[]string{"*", "pods"}, []string{`r: Invalid value: [* pods]: if '*' is present, must not specify other resources without subresources`}},
		{nil, []string{"r: Required value"}},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range validateResourcesWithSubresources(tt.resources, fieldPath("r")) {
			got = append(got, e.Error())
		}
		assert.Equal(t, tt.want, got, "%v", tt.resources)
	}
}

func TestValidateWebhookService(t *testing.T) {
	c := &MutatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: "m"}, Webhooks: []MutatingWebhook{{
		Name: "a.b.c", SideEffects: ptrTo(SideEffectClassNone), AdmissionReviewVersions: []string{"v1", "v1"},
		ClientConfig:       WebhookClientConfig{Service: &ServiceReference{Path: ptrTo("/a//b")}},
		ReinvocationPolicy: ptrTo(ReinvocationPolicyType("Always")),
	}}}
	DefaultMutatingWebhookConfiguration(c)
	c.Webhooks[0].ReinvocationPolicy = ptrTo(ReinvocationPolicyType("Always"))
	var got []string
	for _, e := range ValidateMutatingWebhookConfiguration(c) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version`,
		"webhooks[0].clientConfig.service.name: Required value: service name is required",
		"webhooks[0].clientConfig.service.namespace: Required value: service namespace is required",
		`webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty`,
		`webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`,
	}, got)
}

func TestValidatePolicyCompiles(t *testing.T) {
	p := &ValidatingAdmissionPolicy{ObjectMeta: meta.ObjectMeta{Name: "p"}, Spec: ValidatingAdmissionPolicySpec{
		MatchConstraints: &MatchResources{ResourceRules: []NamedRuleWithOperations{{RuleWithOperations: RuleWithOperations{
			Operations: []OperationType{Create}, Rule: Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
		Validations: []Validation{{Expression: "object.spec.replicas <= 5"}, {Expression: "1", Message: "x\ny"}, {Expression: "true", MessageExpression: "1"}},
	}}
	DefaultValidatingAdmissionPolicy(p)
	var got []string
	for _, e := range ValidateValidatingAdmissionPolicy(p) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`spec.validations[1].expression: Invalid value: "1": compilation failed: must evaluate to bool`,
		`spec.validations[1].message: Invalid value: "x\ny": message must not contain line breaks`,
		`spec.validations[2].messageExpression: Invalid value: "1": compilation failed: must evaluate to string`,
	}, got)
}

func fieldPath(name string) *field.Path { return field.NewPath(name) }

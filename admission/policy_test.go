package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// params is a ParamSource over fixed ConfigMaps.
type params []meta.Object

func (p params) ListByKind(_ context.Context, _, _, _ string) ([]meta.Object, bool, error) {
	return p, true, nil
}

func policyPlugin(p *admissionregistration.ValidatingAdmissionPolicy, b *admissionregistration.ValidatingAdmissionPolicyBinding, ps params) *ValidatingAdmissionPolicy {
	admissionregistration.DefaultValidatingAdmissionPolicy(p)
	admissionregistration.DefaultValidatingAdmissionPolicyBinding(b)
	return NewValidatingAdmissionPolicy(PolicyConfig{
		Policies: func() []*admissionregistration.ValidatingAdmissionPolicy {
			return []*admissionregistration.ValidatingAdmissionPolicy{p}
		},
		Bindings: func() []*admissionregistration.ValidatingAdmissionPolicyBinding {
			return []*admissionregistration.ValidatingAdmissionPolicyBinding{b}
		},
		Params: ps, Namespaces: newNSMap(&core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "default"}}),
	})
}

func podPolicy(validations ...admissionregistration.Validation) *admissionregistration.ValidatingAdmissionPolicy {
	return &admissionregistration.ValidatingAdmissionPolicy{
		ObjectMeta: meta.ObjectMeta{Name: "pol", UID: "u1", ResourceVersion: "1"},
		Spec: admissionregistration.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistration.MatchResources{ResourceRules: []admissionregistration.NamedRuleWithOperations{{RuleWithOperations: podRule}}},
			Validations:      validations,
		},
	}
}

func binding(actions ...admissionregistration.ValidationAction) *admissionregistration.ValidatingAdmissionPolicyBinding {
	return &admissionregistration.ValidatingAdmissionPolicyBinding{ObjectMeta: meta.ObjectMeta{Name: "bind"},
		Spec: admissionregistration.ValidatingAdmissionPolicyBindingSpec{PolicyName: "pol", ValidationActions: actions}}
}

func TestPolicyDecisions(t *testing.T) {
	tests := []struct {
		name     string
		v        admissionregistration.Validation
		actions  []admissionregistration.ValidationAction
		failure  admissionregistration.FailurePolicyType
		code     int32
		msg      string
		warnings []string
	}{
		{name: "passes", v: admissionregistration.Validation{Expression: "object.metadata.name == 'p'"}, actions: []admissionregistration.ValidationAction{"Deny"}},
		{name: "default message", v: admissionregistration.Validation{Expression: "object.metadata.name != 'p'"}, actions: []admissionregistration.ValidationAction{"Deny"},
			code: 422, msg: `pods "p" is forbidden: ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request: failed expression: object.metadata.name != 'p'`},
		{name: "messageExpression and reason", v: admissionregistration.Validation{Expression: "false", MessageExpression: "'user ' + request.userInfo.username",
			Reason: ptr(meta.StatusReasonForbidden)}, actions: []admissionregistration.ValidationAction{"Deny"},
			code: 403, msg: `pods "p" is forbidden: ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request: user alice`},
		{name: "warn", v: admissionregistration.Validation{Expression: "false", Message: "hm"}, actions: []admissionregistration.ValidationAction{"Warn", "Audit"},
			warnings: []string{"Validation failed for ValidatingAdmissionPolicy 'pol' with binding 'bind': hm"}},
		{name: "evaluation error fails", v: admissionregistration.Validation{Expression: "object.spec.nothing == 1"}, actions: []admissionregistration.ValidationAction{"Deny"},
			code: 422, msg: `pods "p" is forbidden: ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request: expression 'object.spec.nothing == 1' resulted in error: no such key: nothing`},
		{name: "evaluation error ignored", v: admissionregistration.Validation{Expression: "object.spec.nothing == 1"}, actions: []admissionregistration.ValidationAction{"Deny"},
			failure: admissionregistration.Ignore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := podPolicy(tt.v)
			if tt.failure != "" {
				p.Spec.FailurePolicy = &tt.failure
			}
			w := &warnings{}
			err := policyPlugin(p, binding(tt.actions...), nil).Validate(WithWarningRecorder(context.Background(), w), podCreate("p", nil))
			if tt.code == 0 {
				require.NoError(t, err)
			} else {
				requireStatus(t, err, tt.code, tt.msg)
			}
			assert.Equal(t, tt.warnings, w.list)
		})
	}
}

func TestPolicyParams(t *testing.T) {
	limits := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "limits", Namespace: "default"}, Data: map[string]string{"max": "1"}}
	p := podPolicy(admissionregistration.Validation{Expression: "size(object.spec.containers) <= int(params.data.max)", Message: "too many"})
	p.Spec.ParamKind = &admissionregistration.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	b := binding("Deny")
	b.Spec.ParamRef = &admissionregistration.ParamRef{Name: "limits", ParameterNotFoundAction: ptr(admissionregistration.DenyAction)}
	plugin := policyPlugin(p, b, params{limits})
	require.NoError(t, plugin.Validate(context.Background(), podCreate("p", nil)))
	two := podCreate("p", nil)
	two.Object.(*core.Pod).Spec.Containers = append(two.Object.(*core.Pod).Spec.Containers, container("d", nil, nil))
	requireStatus(t, plugin.Validate(context.Background(), two), 422, `pods "p" is forbidden: ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request: too many`)

	missing := policyPlugin(p, b, params{})
	requireStatus(t, missing.Validate(context.Background(), podCreate("p", nil)), 422,
		"pods \"p\" is forbidden: ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request: no params found for policy binding with `Deny` parameterNotFoundAction")
	b.Spec.ParamRef.ParameterNotFoundAction = ptr(admissionregistration.AllowAction)
	require.NoError(t, policyPlugin(p, b, params{}).Validate(context.Background(), podCreate("p", nil)))
}

func TestPolicyMatching(t *testing.T) {
	p := podPolicy(admissionregistration.Validation{Expression: "false"})
	b := binding("Deny")
	b.Spec.MatchResources = &admissionregistration.MatchResources{ObjectSelector: &meta.LabelSelector{MatchLabels: map[string]string{"strict": "true"}}}
	plugin := policyPlugin(p, b, nil)
	require.NoError(t, plugin.Validate(context.Background(), podCreate("p", nil)), "binding selects other objects")
	require.Error(t, plugin.Validate(context.Background(), podCreate("p", map[string]string{"strict": "true"})))

	p.Spec.MatchConditions = []admissionregistration.MatchCondition{{Name: "not-p", Expression: "object.metadata.name != 'p'"}}
	p.ResourceVersion = "2"
	require.NoError(t, plugin.Validate(context.Background(), podCreate("p", map[string]string{"strict": "true"})), "matchCondition false")
	p.Spec.MatchConstraints.ExcludeResourceRules = []admissionregistration.NamedRuleWithOperations{{ResourceNames: []string{"q"}, RuleWithOperations: podRule}}
	p.ResourceVersion = "3"
	require.NoError(t, plugin.Validate(context.Background(), podCreate("q", map[string]string{"strict": "true"})), "excluded by name")
}

// TestPolicyNeverMatchesAdmissionConfigurations: constraints that select
// everything still leave the admission configurations out.
func TestPolicyNeverMatchesAdmissionConfigurations(t *testing.T) {
	var m matcher
	for _, res := range []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingwebhookconfigurations"} {
		a := &Attributes{Operation: Create, Resource: meta.GroupVersionResource{Group: admissionregistration.GroupName, Version: "v1", Resource: res}}
		ok, err := m.matchesResources(context.Background(), nil, a, true)
		require.NoError(t, err)
		assert.False(t, ok, res)
	}
	ok, err := m.matchesResources(context.Background(), nil, attrs(Create, "configmaps", "default", "c", nil), true)
	require.NoError(t, err)
	assert.True(t, ok, "configmaps")
}

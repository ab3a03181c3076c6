package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

func mapPlugin(p *admissionregistration.MutatingAdmissionPolicy, b *admissionregistration.MutatingAdmissionPolicyBinding) *MutatingAdmissionPolicy {
	admissionregistration.DefaultMutatingAdmissionPolicy(p)
	admissionregistration.DefaultMutatingAdmissionPolicyBinding(b)
	return NewMutatingAdmissionPolicy(MutatingPolicyConfig{
		Policies: func() []*admissionregistration.MutatingAdmissionPolicy {
			return []*admissionregistration.MutatingAdmissionPolicy{p}
		},
		Bindings: func() []*admissionregistration.MutatingAdmissionPolicyBinding {
			return []*admissionregistration.MutatingAdmissionPolicyBinding{b}
		},
		Namespaces: newNSMap(&core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "default", Labels: map[string]string{"team": "a"}}}),
	})
}

func mutatingPodPolicy(failure admissionregistration.FailurePolicyType, conds []admissionregistration.MatchCondition, ms ...admissionregistration.Mutation) *admissionregistration.MutatingAdmissionPolicy {
	return &admissionregistration.MutatingAdmissionPolicy{
		ObjectMeta: meta.ObjectMeta{Name: "pol", UID: "u1", ResourceVersion: "1"},
		Spec: admissionregistration.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistration.MatchResources{ResourceRules: []admissionregistration.NamedRuleWithOperations{{RuleWithOperations: podRule}}},
			Mutations:        ms, FailurePolicy: &failure, MatchConditions: conds,
			Variables:          []admissionregistration.Variable{{Name: "who", Expression: "request.userInfo.username"}},
			ReinvocationPolicy: admissionregistration.NeverReinvocationPolicy,
		},
	}
}

func applyCfg(expr string) admissionregistration.Mutation {
	return admissionregistration.Mutation{PatchType: admissionregistration.PatchTypeApplyConfiguration,
		ApplyConfiguration: &admissionregistration.ApplyConfiguration{Expression: expr}}
}

func jsonPatch(expr string) admissionregistration.Mutation {
	return admissionregistration.Mutation{PatchType: admissionregistration.PatchTypeJSONPatch, JSONPatch: &admissionregistration.JSONPatch{Expression: expr}}
}

// TestMutatingPolicy: apply configurations and JSON patches change the
// object in order (each seeing the previous result); match conditions,
// a binding's namespace selector and a missing policy leave it alone; an
// expression failing or of the wrong shape rejects the request under
// Fail and is skipped under Ignore.
func TestMutatingPolicy(t *testing.T) {
	fail, ignore := admissionregistration.Fail, admissionregistration.Ignore
	tests := []struct {
		name      string
		failure   admissionregistration.FailurePolicyType
		conds     []admissionregistration.MatchCondition
		binding   func(*admissionregistration.MutatingAdmissionPolicyBinding)
		mutations []admissionregistration.Mutation
		wantAnn   map[string]string
		wantSA    string
		wantErr   string
	}{
		{name: "apply configuration merges", failure: fail,
			mutations: []admissionregistration.Mutation{applyCfg(`Object{metadata: Object.metadata{annotations: {"by": variables.who}}}`)},
			wantAnn:   map[string]string{"keep": "yes", "by": "alice"}},
		{name: "mutations chain", failure: fail, mutations: []admissionregistration.Mutation{
			applyCfg(`Object{spec: Object.spec{serviceAccountName: "first"}}`),
			jsonPatch(`[JSONPatch{op: "replace", path: "/spec/serviceAccountName", value: object.spec.serviceAccountName + "-second"}]`),
		}, wantAnn: map[string]string{"keep": "yes"}, wantSA: "first-second"},
		{name: "match condition false", failure: fail,
			conds:     []admissionregistration.MatchCondition{{Name: "never", Expression: "false"}},
			mutations: []admissionregistration.Mutation{applyCfg(`Object{spec: Object.spec{serviceAccountName: "x"}}`)}, wantAnn: map[string]string{"keep": "yes"}},
		{name: "binding namespace selector does not match", failure: fail,
			binding: func(b *admissionregistration.MutatingAdmissionPolicyBinding) {
				b.Spec.MatchResources = &admissionregistration.MatchResources{NamespaceSelector: &meta.LabelSelector{MatchLabels: map[string]string{"team": "b"}}}
			},
			mutations: []admissionregistration.Mutation{applyCfg(`Object{spec: Object.spec{serviceAccountName: "x"}}`)}, wantAnn: map[string]string{"keep": "yes"}},
		{name: "binding of another policy", failure: fail,
			binding:   func(b *admissionregistration.MutatingAdmissionPolicyBinding) { b.Spec.PolicyName = "missing" },
			mutations: []admissionregistration.Mutation{applyCfg(`Object{spec: Object.spec{serviceAccountName: "x"}}`)}, wantAnn: map[string]string{"keep": "yes"}},
		{name: "evaluation error fails", failure: fail, mutations: []admissionregistration.Mutation{applyCfg(`Object{spec: object.nothing.here}`)},
			wantErr: "policy 'pol' with binding 'bind' denied request: expression 'Object{spec: object.nothing.here}' resulted in error"},
		{name: "wrong shape fails", failure: fail, mutations: []admissionregistration.Mutation{jsonPatch(`"not a list"`)},
			wantErr: "a JSONPatch must evaluate to a list of JSONPatch"},
		{name: "bad patch path fails", failure: fail, mutations: []admissionregistration.Mutation{jsonPatch(`[JSONPatch{op: "remove", path: "/spec/nope"}]`)},
			wantErr: "policy 'pol' with binding 'bind' denied request"},
		{name: "ignored failure", failure: ignore, mutations: []admissionregistration.Mutation{applyCfg(`Object{spec: object.nothing.here}`)},
			wantAnn: map[string]string{"keep": "yes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &admissionregistration.MutatingAdmissionPolicyBinding{ObjectMeta: meta.ObjectMeta{Name: "bind"},
				Spec: admissionregistration.MutatingAdmissionPolicyBindingSpec{PolicyName: "pol"}}
			if tt.binding != nil {
				tt.binding(b)
			}
			m := mapPlugin(mutatingPodPolicy(tt.failure, tt.conds, tt.mutations...), b)
			a := podCreate("p", nil)
			a.Object.GetObjectMeta().Annotations = map[string]string{"keep": "yes"}
			err := m.Admit(context.Background(), a)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.True(t, apierrors.IsForbidden(err), "a rejection is Forbidden: %v", err)
				return
			}
			require.NoError(t, err)
			p := a.Object.(*core.Pod)
			assert.Equal(t, tt.wantAnn, p.Annotations)
			assert.Equal(t, tt.wantSA, p.Spec.ServiceAccountName)
			assert.Equal(t, "c", p.Spec.Containers[0].Name, "the rest of the object is kept")
		})
	}
}

// TestMutatingPolicyOperations: deletes are not handled; a request of
// another resource is left alone.
func TestMutatingPolicyOperations(t *testing.T) {
	m := mapPlugin(mutatingPodPolicy(admissionregistration.Fail, nil, applyCfg(`Object{spec: Object.spec{serviceAccountName: "x"}}`)),
		&admissionregistration.MutatingAdmissionPolicyBinding{ObjectMeta: meta.ObjectMeta{Name: "bind"},
			Spec: admissionregistration.MutatingAdmissionPolicyBindingSpec{PolicyName: "pol"}})
	assert.False(t, m.Handles(Delete))
	assert.True(t, m.Handles(Create) && m.Handles(Update))
	a := podCreate("p", nil)
	a.Resource.Resource = "configmaps"
	require.NoError(t, m.Admit(context.Background(), a))
	assert.Empty(t, a.Object.(*core.Pod).Spec.ServiceAccountName)
}

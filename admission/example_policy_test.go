package admission_test

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
)

// A ValidatingAdmissionPolicy bound with the Deny action refuses a
// Deployment with more than 5 replicas, in kube-apiserver's words. In a
// server the listers read the watch cache (apiserver.CachedList).
func ExampleNewValidatingAdmissionPolicy() {
	policy := &admissionregistration.ValidatingAdmissionPolicy{
		ObjectMeta: meta.ObjectMeta{Name: "max-replicas", UID: "1", ResourceVersion: "1"},
		Spec: admissionregistration.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistration.MatchResources{ResourceRules: []admissionregistration.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistration.RuleWithOperations{
					Operations: []admissionregistration.OperationType{admissionregistration.Create},
					Rule:       admissionregistration.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				}}}},
			Validations: []admissionregistration.Validation{{Expression: "object.spec.replicas <= 5", Message: "at most 5 replicas"}},
		},
	}
	admissionregistration.DefaultValidatingAdmissionPolicy(policy)
	binding := &admissionregistration.ValidatingAdmissionPolicyBinding{
		ObjectMeta: meta.ObjectMeta{Name: "max-replicas-binding"},
		Spec: admissionregistration.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "max-replicas", ValidationActions: []admissionregistration.ValidationAction{admissionregistration.Deny}},
	}
	plugin := admission.NewValidatingAdmissionPolicy(admission.PolicyConfig{
		Policies: func() []*admissionregistration.ValidatingAdmissionPolicy {
			return []*admissionregistration.ValidatingAdmissionPolicy{policy}
		},
		Bindings: func() []*admissionregistration.ValidatingAdmissionPolicyBinding {
			return []*admissionregistration.ValidatingAdmissionPolicyBinding{binding}
		},
	})
	replicas := int32(6)
	d := &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}}
	d.Spec.Replicas = &replicas
	err := plugin.Validate(context.Background(), &admission.Attributes{
		Operation: admission.Create, Resource: meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Namespace: "default", Name: "web", Object: d,
	})
	fmt.Println(err)
	// Output: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: at most 5 replicas
}

package apiserver

import (
	"context"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

func admissionGVR(resource string) meta.GroupVersionResource {
	return meta.GroupVersionResource{Group: admissionregistration.GroupName, Version: admissionregistration.V1, Resource: resource}
}

// The tables of admissionregistration.k8s.io/v1, with kube-apiserver's
// columns: the number of webhooks of a configuration; a policy's number of
// validations and its paramKind; a binding's policy and paramRef.
var (
	mutatingWebhookTable = &TableConvertor{
		Columns: []TableColumn{col("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration", 0)},
		Cells: func(obj meta.Object) []any {
			return []any{int64(len(obj.(*admissionregistration.MutatingWebhookConfiguration).Webhooks))}
		},
	}
	validatingWebhookTable = &TableConvertor{
		Columns: []TableColumn{col("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration", 0)},
		Cells: func(obj meta.Object) []any {
			return []any{int64(len(obj.(*admissionregistration.ValidatingWebhookConfiguration).Webhooks))}
		},
	}
	validatingPolicyTable = &TableConvertor{
		Columns: []TableColumn{
			col("Validations", "integer", "Validations indicates the number of validation rules defined in this configuration", 0),
			col("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy", 0),
		},
		Cells: func(obj meta.Object) []any {
			p := obj.(*admissionregistration.ValidatingAdmissionPolicy)
			kind := "<unset>"
			if k := p.Spec.ParamKind; k != nil {
				kind = k.APIVersion + "/" + k.Kind
			}
			return []any{int64(len(p.Spec.Validations)), kind}
		},
	}
	policyBindingTable = &TableConvertor{
		Columns: []TableColumn{
			col("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to", 0),
			col("ParamRef", "string", "ParamRef indicates the param resource which sets the configration param", 0),
		},
		Cells: func(obj meta.Object) []any {
			b := obj.(*admissionregistration.ValidatingAdmissionPolicyBinding)
			return []any{b.Spec.PolicyName, paramRefCell(b.Spec.ParamRef)}
		},
	}
)

// paramRefCell prints a paramRef as kube-apiserver does: namespace/name,
// "*/name" without a namespace, or the selector.
func paramRefCell(r *admissionregistration.ParamRef) string {
	switch {
	case r == nil:
		return "<unset>"
	case r.Name != "" && r.Namespace != "":
		return r.Namespace + "/" + r.Name
	case r.Name != "":
		return "*/" + r.Name
	case r.Selector != nil:
		if s, err := labels.SelectorFromLabelSelector(r.Selector); err == nil {
			return s.String()
		}
	}
	return "<unset>"
}

// policyStrategy records the type check of a ValidatingAdmissionPolicy in
// its status when the policy is written: its expressions compiled when it
// was validated, and as every variable is dynamic the check has no
// warnings, so status.typeChecking is empty and observedGeneration the
// policy's generation. (kube-apiserver's type-checking controller writes
// the same status a moment later.)
type policyStrategy struct{ *DefaultStrategy }

// PrepareForCreate sets the status after the default preparation.
func (s *policyStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	s.DefaultStrategy.PrepareForCreate(ctx, obj)
	markTypeChecked(obj.(*admissionregistration.ValidatingAdmissionPolicy))
}

// PrepareForUpdate sets the status after the default preparation of a
// main-resource update.
func (s *policyStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
	if subresource == "" {
		markTypeChecked(obj.(*admissionregistration.ValidatingAdmissionPolicy))
	}
}

func markTypeChecked(p *admissionregistration.ValidatingAdmissionPolicy) {
	p.Status.ObservedGeneration = p.Generation
	p.Status.TypeChecking = &admissionregistration.TypeChecking{}
}

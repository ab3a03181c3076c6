package controlplane

import (
	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
)

// newMutatingAdmissionPolicy returns the MutatingAdmissionPolicy plugin of
// srv: policies, bindings and parameters from the watch caches, the
// built-in kinds' defaults applied to mutated objects.
func newMutatingAdmissionPolicy(srv *apiserver.Server) *admission.MutatingAdmissionPolicy {
	src := srv.AdmissionSources()
	sch := api.NewScheme()
	return admission.NewMutatingAdmissionPolicy(admission.MutatingPolicyConfig{
		Policies: apiserver.CachedList[admissionregistration.MutatingAdmissionPolicy](srv, admissionGVR("mutatingadmissionpolicies")),
		Bindings: apiserver.CachedList[admissionregistration.MutatingAdmissionPolicyBinding](srv, admissionGVR("mutatingadmissionpolicybindings")),
		Params:   src, Namespaces: src, NamespaceLookup: src.LookupNamespace,
		Defaults: func(o meta.Object) {
			if t, ok := sch.ByKind(o.GetTypeMeta().GroupVersionKind()); ok && t.Default != nil {
				t.Default(o)
			}
		},
	})
}

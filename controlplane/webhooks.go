package controlplane

import (
	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
)

func admissionGVR(resource string) meta.GroupVersionResource {
	return admissionregistration.GroupVersion().WithResource(resource)
}

// webhookConfig is what the webhook plugins of srv read: namespaces from
// the watch cache (storage for one not cached yet), Services and their
// EndpointSlices for service references, the server's equivalent
// resources and their conversions for matchPolicy Equivalent.
func webhookConfig(srv *apiserver.Server) admission.WebhookConfig {
	src := srv.AdmissionSources()
	eq := srv.Equivalents()
	return admission.WebhookConfig{Namespaces: src, NamespaceLookup: src.LookupNamespace, Services: src, Equivalents: eq, Converter: eq}
}

// newMutatingWebhook returns the MutatingAdmissionWebhook plugin of srv,
// applying the served kinds' defaults (a custom resource's pruning and
// defaults included) to patched objects.
func newMutatingWebhook(srv *apiserver.Server) *admission.MutatingWebhook {
	list := apiserver.CachedList[admissionregistration.MutatingWebhookConfiguration](srv, admissionGVR("mutatingwebhookconfigurations"))
	return admission.NewMutatingWebhook(list, webhookConfig(srv), srv.DefaultObject)
}

// newValidatingWebhook returns the ValidatingAdmissionWebhook plugin of srv.
func newValidatingWebhook(srv *apiserver.Server) *admission.ValidatingWebhook {
	list := apiserver.CachedList[admissionregistration.ValidatingWebhookConfiguration](srv, admissionGVR("validatingwebhookconfigurations"))
	return admission.NewValidatingWebhook(list, webhookConfig(srv))
}

// newValidatingAdmissionPolicy returns the ValidatingAdmissionPolicy
// plugin of srv: policies, bindings and parameters from the watch caches.
func newValidatingAdmissionPolicy(srv *apiserver.Server) *admission.ValidatingAdmissionPolicy {
	src := srv.AdmissionSources()
	return admission.NewValidatingAdmissionPolicy(admission.PolicyConfig{
		Policies: apiserver.CachedList[admissionregistration.ValidatingAdmissionPolicy](srv, admissionGVR("validatingadmissionpolicies")),
		Bindings: apiserver.CachedList[admissionregistration.ValidatingAdmissionPolicyBinding](srv, admissionGVR("validatingadmissionpolicybindings")),
		Params:   src, Namespaces: src, NamespaceLookup: src.LookupNamespace,
	})
}

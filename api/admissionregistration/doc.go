// Package admissionregistration holds the InitializerConfiguration kind of
// admissionregistration.k8s.io/v1alpha1, as Kubernetes 1.7–1.13 had it: a
// cluster-scoped list of named initializers and the resources each one acts
// on. The API server reads these to fill metadata.initializers.pending of new
// objects (see DESIGN.md, "initializers").
//
// It also holds the admissionregistration.k8s.io/v1 kinds of today's
// Kubernetes: MutatingWebhookConfiguration and ValidatingWebhookConfiguration
// (admission webhooks called over TLS), ValidatingAdmissionPolicy (CEL
// validations, compiled by the celpolicy subpackage) and
// ValidatingAdmissionPolicyBinding, with kube-apiserver's defaults and
// validation messages. The admission package acts on them.
//
// Types marshal to JSON exactly as Kubernetes did. Values are plain data with
// no internal synchronisation.
package admissionregistration

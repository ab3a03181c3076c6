// Package admission is the stage between authorization and storage: a
// chain of mutating plugins (Mutator) that may change an object, then a
// chain of validating plugins (Validator) that may only accept or reject
// it. Any error rejects the request and nothing is stored. The package
// also holds the built-in plugins and the Initializer interface with the
// runner that calls Go initializers.
//
// Beside the Go plugins, four plugins run what users configure through
// the API, as Kubernetes does: MutatingWebhook and ValidatingWebhook call
// the admission webhooks of admissionregistration.k8s.io/v1
// Mutating/ValidatingWebhookConfigurations over TLS with
// admission.k8s.io/v1 AdmissionReviews, ValidatingAdmissionPolicy
// evaluates the CEL validations of ValidatingAdmissionPolicies through
// their bindings, and MutatingAdmissionPolicy applies the CEL mutations
// (apply configurations and JSON patches) of MutatingAdmissionPolicies
// through theirs. Warnings they produce go to the WarningRecorder in the
// request's context (AddWarning).
package admission

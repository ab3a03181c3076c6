// Package celpolicy compiles and evaluates the CEL expressions of
// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and of
// webhook matchConditions, in the environment Kubernetes gives them:
// object, oldObject, params, request, namespaceObject and variables, with
// the Kubernetes CEL libraries of api/apiextensions/schema.
//
// Compiled programs are immutable and safe for concurrent use; the
// activation built for each evaluation is owned by its caller.
package celpolicy

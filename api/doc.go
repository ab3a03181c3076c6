// Package api assembles orkit's object model: NewScheme returns a scheme
// with every built-in kind — core/v1 and the apps, rbac, coordination,
// scheduling, admissionregistration, authorization and authentication
// groups — registered with its resource name, scope, short names,
// categories, subresources, defaulting and validation.
//
// The kinds themselves live in one package per API group (api/core,
// api/apps, api/rbac, ...; resource.k8s.io, Dynamic Resource Allocation,
// in api/dra since api/resource is the Quantity package); the shared metadata in api/meta, validation
// failures in api/field, and the registry in api/scheme.
package api

// Package apiextensions holds the apiextensions.k8s.io/v1 kind
// CustomResourceDefinition: a resource declared by an object (group,
// names, scope, versions with their OpenAPI v3 schemas, subresources,
// printer columns) instead of by Go code. It carries defaulting
// (SetDefaults), the create and update preparation of kube-apiserver's
// strategy (PrepareForCreate, PrepareForUpdate), validation as
// kube-apiserver does it (ValidateCustomResourceDefinition and friends,
// with the schema checks of package schema), condition helpers, scheme
// registration, and what serving needs beyond the schema: AcceptNames
// (the naming controller's decision: accepted names, NamesAccepted and
// Established conditions), PrinterColumns (Table cells of a version's
// additionalPrinterColumns) and the scale subresource helpers
// (ValidateScale, ScaleOf, SetSpecReplicas).
//
// Types marshal to JSON exactly as Kubernetes' apiextensions/v1 for every
// field, so kubectl applies real CRD manifests unchanged. Values are plain
// data with no internal synchronisation: share them read-only or copy
// them (meta.DeepCopy).
//
// Serving custom resources (the REST endpoints, discovery, OpenAPI, the
// Established/NamesAccepted controller) is the API server's job; this
// package and schema give it the object model, the checks and a compiled
// validator per version.
package apiextensions

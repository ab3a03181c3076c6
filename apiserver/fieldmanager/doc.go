// Package fieldmanager owns field ownership: the metadata.managedFields of
// every object and server-side apply, as kube-apiserver implements them on
// sigs.k8s.io/structured-merge-diff/v6 (SMD).
//
//	schema description ──NewTypeConverter──▶ TypeConverter (SMD schema)
//	    (an OpenAPI v3 JSONSchemaProps with its x-kubernetes-list-type,
//	     -list-map-keys, -map-type extensions: a CRD's schema, or
//	     SchemaOf(Go type) for a built-in kind)
//	FieldManager (one per resource and subresource)
//	    Update(live, next, manager)        every create/update/patch: the fields
//	                                       that changed become the manager's
//	                                       (operation Update)
//	    Apply(live, config, manager, force) server-side apply: merge, prune what
//	                                       the applier stopped applying, 409 on
//	                                       conflicts (operation Apply)
//
// Objects are handled in unstructured form (map[string]any with int64,
// float64, string, bool, nil, []any and map[string]any values), so the same
// code serves Go-typed kinds and custom resources.
//
// managedFields is encoded as Kubernetes encodes it: one entry per manager
// with manager, operation (Apply or Update), apiVersion, time, fieldsType
// FieldsV1 and fieldsV1 in the f:/k:/v:/i: form, sorted by operation, time
// and manager. Manager identity follows kube-apiserver: an applier is its
// name; an updater is its name, API version and subresource.
//
// As in kube-apiserver: apiVersion, kind and identity metadata are owned by
// nobody; an object without managedFields that is applied to gives its
// fields to "before-first-apply"; more than ten Update managers are merged
// into "ancient-changes"; a manager's time moves only when its write
// changed something; and for the move from client-side apply, conflicts
// on fields in kubectl.kubernetes.io/last-applied-configuration are
// forgiven and kubectl's server-side applies keep that annotation current.
//
// Not done: conversion of field sets between API versions (each kind has
// one version here, so sets recorded under another version are compared
// as they are), and unions (discriminated one-of fields).
package fieldmanager

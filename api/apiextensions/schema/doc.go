// Package schema owns the OpenAPI v3 schemas of CustomResourceDefinitions:
// the JSONSchemaProps object model (JSON identical to Kubernetes'
// apiextensions.k8s.io/v1), the checks kube-apiserver applies to a schema
// when a CRD is created (Check, CheckStructural), and Schema, a schema
// compiled once into a reusable validator that does for every custom
// resource what kube-apiserver does:
//
//	request body ──DecodeJSON──▶ map[string]any
//	    ──Prune──▶   unknown fields removed (and reported, for strict field validation),
//	                 embedded resources' metadata normalised
//	    ──Default──▶ defaults applied (on write, and on read from storage)
//	    ──Validate / ValidateUpdate──▶ field.ErrorList
//	         1. value validations (type, enum, pattern, format, bounds, required, ...)
//	            worded as kube-openapi words them
//	         2. embedded resources (apiVersion, kind, metadata)
//	         3. list types set and map (uniqueness)
//	         4. x-kubernetes-validations CEL rules (self, oldSelf, messageExpression,
//	            reason, fieldPath) within Kubernetes' cost budget
//
// OpenAPI converts a version's schema into the schema the API server
// publishes at /openapi/v3 for kubectl explain.
//
// Objects are handled in canonical JSON form: map[string]any with nil,
// bool, int64, float64, string, []any and map[string]any values, as
// DecodeJSON produces them (Kubernetes' unstructured form).
//
// CEL rules compile with github.com/google/cel-go in an environment like
// Kubernetes': the standard library, optional types, the strings (v2) and
// sets extensions, and Kubernetes' list (isSorted, sum, min, max, indexOf,
// lastIndexOf), regex (find, findAll), URL (url, isURL, getScheme, ...) and
// quantity (quantity, isQuantity, add, sub, compareTo, ...) libraries.
// Fields are typed from the schema (format date-time as a timestamp,
// duration as a duration, byte as bytes), property names are escaped as
// Kubernetes escapes them (__dash__, __dot__, __slash__, __namespace__).
//
// On update, validation ratchets as in Kubernetes: values equal to their
// correlated old values are not checked again. Lists of type set and map
// compare in CEL regardless of order and merge on +, as in Kubernetes.
//
// Not done: the IP, CIDR, format and semver CEL libraries, and the
// two-variable comprehensions extension.
package schema

// Package jsonpath evaluates the JSONPath expressions Kubernetes uses in
// CRD printer columns and kubectl's -o jsonpath (".spec.replicas",
// ".status.conditions[?(@.type==\"Ready\")].status", ".items[*].name")
// over JSON values in canonical form (map[string]any, []any, string,
// int64, float64, bool, nil).
//
// Supported: field steps (.name, ['name'], ["a.b"]), the wildcard (.*,
// [*]), recursive descent (..name), indices (negative from the end),
// slices ([start:end:step]), unions of names or indices ([0,2],
// ['a','b']), and filters comparing a relative path with a literal
// ([?(@.type=="Ready")], [?(@.n > 2)]) or testing its existence
// ([?(@.ready)]). Missing keys yield no result rather than an error, as
// with Kubernetes' AllowMissingKeys. A parsed Path is immutable and safe
// for concurrent use.
package jsonpath

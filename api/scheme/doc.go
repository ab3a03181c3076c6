// Package scheme maps kinds to resources: for every registered kind it knows
// the group, version, resource name, scope, short names and categories, how
// to make a new object, and how to default and validate one. Built-in kinds
// (see api.NewScheme) and user-defined kinds register the same way.
package scheme

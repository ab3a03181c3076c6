// Package fields selects objects by the values of a few of their fields
// (metadata.name, metadata.namespace, spec.nodeName, status.phase, ...):
// the Fields an object exposes (a Set), the Selector that matches them, and
// the string syntax of ?fieldSelector= and kubectl --field-selector
// ("metadata.name=web,spec.nodeName!=node-1").
//
// A selector is a conjunction of terms field=value, field==value and
// field!=value. In a value, ',' '=' and '\' are written escaped with a
// backslash (EscapeValue does it); field names are taken literally up to
// the first operator. Which field names a kind supports is for the API
// server to decide (see Selector.Requirements).
//
// Selectors are immutable values, safe to share between goroutines.
package fields

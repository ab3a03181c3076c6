// Package labels selects objects by their labels: the Labels an object
// carries (a Set), the Selector that matches them, its string syntax as used
// by ?labelSelector= and kubectl -l ("app=web,tier in (fe,be),!canary"),
// and the conversion from the API's meta.LabelSelector.
//
// Selectors are immutable values: safe to share between goroutines and to
// keep for as long as needed. The string a selector prints re-parses to an
// equal selector; requirements are kept sorted by key, so equal selectors
// print the same.
package labels

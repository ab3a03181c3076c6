// Package errors builds and inspects the API's error objects: each
// constructor returns a *meta.Status with the reason, HTTP code and message
// Kubernetes uses, and the Is* predicates recognise them on either side of
// the wire (the server builds them, the client decodes them).
package errors

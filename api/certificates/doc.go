// Package certificates holds the certificates.k8s.io/v1
// CertificateSigningRequest kind: a request for an X.509 certificate from
// a named signer, approved or denied through its approval subresource and
// answered through its status subresource, with its validation and
// scheme registration.
//
// The kind marshals to JSON exactly as Kubernetes' certificates/v1 for
// every field it carries. Values are plain data with no internal
// synchronisation.
package certificates

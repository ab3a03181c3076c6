// Package certificates holds the certificates.k8s.io/v1 kinds:
// CertificateSigningRequest (a request for an X.509 certificate from a
// named signer, approved or denied through its approval subresource and
// answered through its status subresource), ClusterTrustBundle (a
// cluster-scoped set of CA certificates, optionally owned by a signer,
// that kubelets project into pods) and PodCertificateRequest (a
// kubelet's request, for one pod, of a certificate for a key it
// generated, answered by the signer through the status subresource),
// with their validation, the trust-bundle PEM parser and scheme
// registration.
//
// The kinds marshal to JSON exactly as Kubernetes' certificates/v1 for
// every field they carry. Values are plain data with no internal
// synchronisation.
package certificates

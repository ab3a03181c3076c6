// Package certificates holds what the CertificateSigningRequest
// controllers share: the shape of a kubelet client certificate request
// (CN system:node:<name>, O system:nodes, client usages, no names) that
// both the approver and the kube-apiserver-client-kubelet signer check.
// The controllers are in approver and signer.
package certificates

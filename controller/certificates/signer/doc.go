// Package signer is the CertificateSigningRequest signer, as
// kube-controller-manager's csrsigning: it answers approved requests for
// the kubernetes.io/kube-apiserver-client-kubelet and
// kubernetes.io/kube-apiserver-client signers with a certificate from the
// cluster CA, or marks them Failed when they break the signer's rules.
package signer

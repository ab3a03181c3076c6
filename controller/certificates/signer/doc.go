// Package signer is the CertificateSigningRequest signer, as
// kube-controller-manager's csrsigning: it answers approved requests for
// the kubernetes.io/kube-apiserver-client-kubelet,
// kubernetes.io/kube-apiserver-client and kubernetes.io/kubelet-serving
// signers with a certificate from the cluster CA (a serving one, with the
// request's DNS and IP names, for kubelet-serving), or marks them Failed when they break the signer's rules.
package signer

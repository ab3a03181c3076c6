// Package clientcert owns a kubelet's client certificate, as the
// kubelet's --bootstrap-kubeconfig and --rotate-certificates do: on first
// start it authenticates with a bootstrap token, asks for a
// kubernetes.io/kube-apiserver-client-kubelet certificate for
// system:node:<name> with a CertificateSigningRequest and waits for the
// cluster's approver and signer; afterwards it keeps the certificate and
// key in its directory and renews the certificate, with the certificate
// itself, once 80% of its validity has passed.
package clientcert

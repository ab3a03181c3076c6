// Package approver is the CertificateSigningRequest approver, as
// kube-controller-manager's csrapproving: it approves kubelet client
// certificate requests (signer kubernetes.io/kube-apiserver-client-kubelet)
// whose creator may, by a SubjectAccessReview, create
// certificatesigningrequests/nodeclient (a new node, usually a bootstrap
// token in system:bootstrappers) or, for a request for its own name,
// certificatesigningrequests/selfnodeclient (a node renewing). Everything
// else it leaves for a person (kubectl certificate approve).
package approver

// Package approver is the CertificateSigningRequest approver, as
// kube-controller-manager's csrapproving: it approves kubelet client
// certificate requests (signer kubernetes.io/kube-apiserver-client-kubelet)
// whose creator may, by a SubjectAccessReview, create
// certificatesigningrequests/nodeclient (a new node, usually a bootstrap
// token in system:bootstrappers) or, for a request for its own name,
// certificatesigningrequests/selfnodeclient (a node renewing). With
// Config.ApproveKubeletServing it also approves a node's request for its
// own kubelet serving certificate (signer kubernetes.io/kubelet-serving)
// whose names are the Node's own, as kubelet-csr-approver does for
// kubeadm clusters (Kubernetes leaves those to a person). Everything else
// it leaves for a person (kubectl certificate approve).
package approver

// Package bootstraptoken owns Kubernetes' bootstrap tokens: short-lived
// bearer tokens "<id>.<secret>" kept as Secrets of type
// bootstrap.kubernetes.io/token named bootstrap-token-<id> in
// kube-system, with which a new node authenticates as
// system:bootstrap:<id> in group system:bootstrappers to ask for its own
// client certificate (kubeadm join, k3s agent).
//
// Authenticator checks such tokens against their Secrets as
// kube-apiserver's --enable-bootstrap-token-auth does; Generate, Parse
// and NewSecret make and read them. Everything here is safe for
// concurrent use.
package bootstraptoken

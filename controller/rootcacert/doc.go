// Package rootcacert is the root CA publisher: every active namespace has
// a ConfigMap named kube-root-ca.crt whose ca.crt is the cluster CA
// bundle, so that a pod can verify the API server it reaches by its
// in-cluster name (the kube-api-access-* volume projects it into every
// container), as Kubernetes' root-ca-cert-publisher keeps it. A deleted
// ConfigMap is recreated, a changed one is put back.
//
// Requests are namespace names; the controller watches Namespaces and
// ConfigMaps through its manager's shared informers.
package rootcacert

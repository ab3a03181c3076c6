// Package node holds the node.k8s.io/v1 RuntimeClass kind — a container
// runtime configuration (the CRI handler), the pod overhead it costs, and
// the nodes that support it — with its validation and scheme
// registration. RuntimeClass marshals to JSON exactly as Kubernetes'
// node/v1. The RuntimeClass admission plugin (admission.RuntimeClass)
// applies a class's overhead and scheduling to the pods that name it.
package node

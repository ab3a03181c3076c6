// Package nodeagent is a kwok-like node agent written with client-go, as
// the ecosystem's fake-node tools are: it registers Nodes with their
// status (capacity, allocatable, a Ready condition, addresses) in one
// create, renews each Node's Lease in kube-node-lease as the kubelet does,
// and marks the pods a scheduler binds to its Nodes Running (and finishes
// their graceful deletion). It runs no containers. The compat tests and
// the load generator use it to prove that orkit's scheduler places pods on
// Nodes registered by a client other than orkit's own kubelet.
//
//	Register(n) ─▶ Node (with status) + Lease (owned by the Node)
//	Run ─▶ lease renewals every LeaseInterval
//	    ─▶ pod informer (spec.nodeName set) ─▶ workqueue ─▶ status Running / delete
package nodeagent

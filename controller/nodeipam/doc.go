// Package nodeipam is the node IPAM controller: every Node gets a pod
// CIDR (spec.podCIDR and spec.podCIDRs) carved from the cluster CIDR,
// never two the same, as kube-controller-manager's range allocator does.
//
//	Node event ──▶ queue ──▶ Reconcile(name)
//	    first reconcile: mark every CIDR existing nodes hold (recovery)
//	    node has a CIDR  ─▶ mark it used
//	    node has none    ─▶ next free /NodeMaskSize, patch spec.podCIDR(s)
//	    node gone        ─▶ release its CIDR
//
// The allocation itself (CIDRSet) is a pure bitmap over the subnets of
// the cluster CIDR; reserved ranges are left to nodes that bring their own
// CIDRs. A node whose CIDR lies outside the cluster CIDR is logged once.
package nodeipam

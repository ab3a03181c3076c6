package coordination

import "github.com/orkit/orkit/api/meta"

// GroupName is the API group of Lease.
const GroupName = "coordination.k8s.io"

// Version is the API version of Lease.
const Version = "v1"

// NodeLeaseNamespace is the namespace holding one Lease per node, renewed
// by the node's kubelet as its heartbeat.
const NodeLeaseNamespace = "kube-node-lease"

// Lease records who holds a named lock and until when. Holders renew it by
// updating RenewTime; optimistic concurrency (resourceVersion) arbitrates
// between contenders.
type Lease struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            LeaseSpec `json:"spec,omitempty"`
}

// LeaseList is a list of Leases.
type LeaseList = meta.List[Lease]

// LeaseSpec is the state of a lease. Every field is optional.
type LeaseSpec struct {
	// HolderIdentity names the current holder.
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds is how long after RenewTime candidates must wait
	// before they may take the lease over.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *meta.MicroTime `json:"acquireTime,omitempty"`
	// RenewTime is when the current holder last renewed the lease.
	RenewTime *meta.MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts the changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
	// Strategy is the coordinated leader election strategy, carried as is.
	Strategy *string `json:"strategy,omitempty"`
	// PreferredHolder is the identity the lease should pass to, carried as is.
	PreferredHolder *string `json:"preferredHolder,omitempty"`
}

// Package resourceclaim is Kubernetes' resource claim controller for
// Dynamic Resource Allocation (resource.k8s.io/v1): for every pod entry
// in spec.resourceClaims that names a ResourceClaimTemplate it creates a
// ResourceClaim from the template (generated name <pod>-<claim>-xxxxx,
// owned by the pod, annotated resource.kubernetes.io/pod-claim-name) and
// records it in the pod's status.resourceClaimStatuses; and it keeps
// claims tidy: it drops reservations (status.reservedFor) of pods that
// are gone, replaced or done, deallocates a claim nobody reserves any
// more when the allocator protected it with the
// resource.kubernetes.io/delete-protection finalizer, and deletes the
// generated claim of a pod that is done and no longer holds it.
//
// It allocates nothing: allocation is the scheduler's. The controller
// reconciles per pod (a claim's change enqueues its owning pod and the
// pods it is reserved for), reads shared informers of Pods,
// ResourceClaims and ResourceClaimTemplates, and writes through the
// manager's client.
package resourceclaim

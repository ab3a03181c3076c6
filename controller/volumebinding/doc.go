// Package volumebinding binds PersistentVolumeClaims to
// PersistentVolumes and reclaims released volumes. Provisioners
// (controller/localpath) create volumes pre-bound to their claims; this
// controller completes those bindings too.
//
//	claim, unbound ──▶ a pre-bound volume (claimRef names the claim), else the smallest
//	                   Available volume that fits (storageClassName, access modes,
//	                   volumeMode, capacity ≥ request, the claim's selector)
//	                      found ─▶ volume.claimRef = claim; volume Bound;
//	                               claim.volumeName = volume; claim Bound
//	                      none, the claim names no class and a default StorageClass
//	                            ─▶ the claim gets the default class (retroactively, as
//	                               Kubernetes does for claims made before the default)
//	                      none  ─▶ claim stays Pending until a volume appears (a
//	                               provisioner's, pre-bound to it, is bound next), with a
//	                               WaitForFirstConsumer or ExternalProvisioning Event
//	volume whose claim is gone (checked by a live GET, by UID)
//	                   ──▶ Released; then by reclaim policy:
//	                         Retain ─▶ stays Released
//	                         Delete ─▶ the volume is deleted, unless a provisioner made it
//	                                   (pv.kubernetes.io/provisioned-by): its provisioner
//	                                   removes the storage and then the volume
//
// Requests are keyed by namespace/name: a claim's request has its
// namespace, a volume's (cluster-scoped) has none. This follows
// Kubernetes' persistent volume controller, written from its
// documentation.
package volumebinding

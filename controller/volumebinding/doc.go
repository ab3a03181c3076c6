// Package volumebinding binds PersistentVolumeClaims to
// PersistentVolumes, provisions hostPath-backed volumes on demand for one
// local storage class, and reclaims released volumes.
//
//	claim, unbound ──▶ a pre-bound volume (claimRef names the claim), else the smallest
//	                   Available volume that fits (storageClassName, access modes,
//	                   volumeMode, capacity ≥ request, the claim's selector)
//	                      found ─▶ volume.claimRef = claim; volume Bound;
//	                               claim.volumeName = volume; claim Bound
//	                      none, class = Config.LocalStorageClass
//	                            ─▶ mkdir LocalDir/pvc-<uid>; create a hostPath volume
//	                               pre-bound to the claim (bound on the next pass)
//	                      none  ─▶ claim stays Pending until a volume appears
//	volume whose claim is gone (checked by a live GET, by UID)
//	                   ──▶ Released; then by reclaim policy:
//	                         Retain ─▶ stays Released
//	                         Delete ─▶ the provisioned directory is removed, the volume deleted
//
// Requests are keyed by namespace/name: a claim's request has its
// namespace, a volume's (cluster-scoped) has none. This follows
// Kubernetes' persistent volume controller and the local-path
// provisioner, written from their documentation.
package volumebinding

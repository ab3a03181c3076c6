// Package localpath is a dynamic provisioner of node-local directories,
// the way k3s's local-path provisioner works: for a claim of a
// StorageClass whose provisioner is Config.Provisioner
// ("orkit.io/local-path" by default) it creates a PersistentVolume on one
// node — a hostPath directory Config.BaseDir/<volume>_<namespace>_<claim>
// (type DirectoryOrCreate: the kubelet makes it when the first pod mounts
// it) with node affinity to that node — pre-bound to the claim, which the
// volumebinding controller then binds.
//
//	claim of a local-path class, unbound, no existing volume fits
//	   class Immediate            ─▶ the node: selected-node annotation, else the first
//	                                 Ready schedulable node by name
//	   class WaitForFirstConsumer ─▶ wait for the scheduler's
//	                                 volume.kubernetes.io/selected-node annotation
//	   ─▶ create volume pvc-<claim uid>: hostPath, nodeAffinity hostname=node,
//	      reclaim policy and mount options of the class, claimRef = claim
//	volume provisioned here, Released (its claim deleted; volumebinding marks it)
//	   Retain ─▶ kept, with its directory
//	   Delete ─▶ a helper pod on the volume's node (Config.HelperImage, the
//	             hostPath BaseDir mounted) removes the directory; when it
//	             Succeeded the volume is deleted; when it Failed the volume is
//	             marked Failed with the reason and kept
//
// The directory is removed on the node that holds it, by a pod the
// kubelet runs there, as k3s does — never by the controller's own
// process, which may run on another machine. EnsureClass creates the
// (default) StorageClass naming the provisioner, as k3s ships its
// local-path class.
package localpath

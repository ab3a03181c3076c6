package localpath

import (
	"context"
	"fmt"
	"sort"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
)

// syncClaim provisions a volume for an unbound claim of a class this
// provisioner serves, once the node is known.
func (c *Controller) syncClaim(ctx context.Context, pvc *core.PersistentVolumeClaim) error {
	sc := c.classOf(pvc)
	if sc == nil {
		return nil
	}
	name := VolumeName(pvc)
	if _, err := c.volumes.Get("", name); err == nil {
		return nil // provisioned; volumebinding binds it
	}
	if c.staticVolumeFits(pvc) {
		return nil // volumebinding binds an existing volume, as Kubernetes prefers
	}
	node := pvc.Annotations[storage.AnnotationSelectedNode]
	if node == "" {
		if storage.BindingMode(sc) == storage.VolumeBindingWaitForFirstConsumer {
			return nil // the scheduler annotates the claim when a pod needs it
		}
		var err error
		if node, err = c.pickNode(); err != nil {
			c.rec.Eventf(pvc, core.EventTypeWarning, "ProvisioningFailed", "failed to provision volume with StorageClass %q: %v", sc.Name, err)
			return nil // retried when a node changes
		}
	}
	pv := c.newVolume(name, node, sc, pvc)
	c.rec.Eventf(pvc, core.EventTypeNormal, "Provisioning", "External provisioner is provisioning volume for claim %q", pvc.Namespace+"/"+pvc.Name)
	_, err := client.For[core.PersistentVolume](c.client, "").Create(ctx, pv)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		c.rec.Eventf(pvc, core.EventTypeWarning, "ProvisioningFailed", "failed to provision volume with StorageClass %q: %v", sc.Name, err)
		return fmt.Errorf("provision %s/%s: create volume %s: %w", pvc.Namespace, pvc.Name, name, err)
	}
	c.rec.Eventf(pvc, core.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume %s", name)
	c.log.Info("provisioned volume", "claim", pvc.Namespace+"/"+pvc.Name, "volume", name, "node", node, "path", pv.Spec.HostPath.Path)
	return nil
}

// classOf returns the claim's class when this provisioner serves it.
func (c *Controller) classOf(pvc *core.PersistentVolumeClaim) *storage.StorageClass {
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		return nil
	}
	sc, err := c.classes.Get("", *pvc.Spec.StorageClassName)
	if err != nil || sc.Provisioner != c.cfg.Provisioner {
		return nil
	}
	return sc
}

// staticVolumeFits reports whether a free volume of the claim's class
// (not one this provisioner made for another claim) could serve it.
func (c *Controller) staticVolumeFits(pvc *core.PersistentVolumeClaim) bool {
	for _, pv := range c.volumes.List(nil) {
		if pv.Spec.ClaimRef == nil && pv.DeletionTimestamp == nil && pv.Status.Phase != core.VolumeReleased &&
			pv.Status.Phase != core.VolumeFailed && pv.Spec.StorageClassName == *pvc.Spec.StorageClassName &&
			capacityFits(pv, pvc) {
			return true
		}
	}
	return false
}

func capacityFits(pv *core.PersistentVolume, pvc *core.PersistentVolumeClaim) bool {
	want, ok := pvc.Spec.Resources.Requests[core.ResourceStorage]
	have, has := pv.Spec.Capacity[core.ResourceStorage]
	return has && (!ok || have.Cmp(want) >= 0)
}

// pickNode chooses the node of an Immediate volume: the first Ready,
// schedulable node by name.
func (c *Controller) pickNode() (string, error) {
	nodes := c.nodes.List(nil)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	for _, n := range nodes {
		if core.IsNodeReady(n) && !n.Spec.Unschedulable {
			return n.Name, nil
		}
	}
	return "", ErrNoNode
}

// VolumeName is the name of the volume provisioned for a claim:
// pvc-<claim uid>, as Kubernetes' provisioners name theirs.
func VolumeName(pvc *core.PersistentVolumeClaim) string { return "pvc-" + string(pvc.UID) }

// newVolume is the volume for pvc on node: a DirectoryOrCreate hostPath
// under BaseDir, reachable only from node, pre-bound to the claim, with
// the class's reclaim policy and mount options.
func (c *Controller) newVolume(name, node string, sc *storage.StorageClass, pvc *core.PersistentVolumeClaim) *core.PersistentVolume {
	dirOrCreate := core.HostPathDirectoryOrCreate
	size := pvc.Spec.Resources.Requests[core.ResourceStorage]
	return &core.PersistentVolume{
		ObjectMeta: meta.ObjectMeta{Name: name, Annotations: map[string]string{AnnProvisionedBy: c.cfg.Provisioner}},
		Spec: core.PersistentVolumeSpec{
			Capacity:                      core.ResourceList{core.ResourceStorage: size},
			PersistentVolumeSource:        core.PersistentVolumeSource{HostPath: &core.HostPathVolumeSource{Path: c.volumeDir(name, pvc), Type: &dirOrCreate}},
			AccessModes:                   pvc.Spec.AccessModes,
			ClaimRef:                      &core.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
			PersistentVolumeReclaimPolicy: storage.ReclaimPolicyOf(sc),
			StorageClassName:              sc.Name,
			MountOptions:                  sc.MountOptions,
			VolumeMode:                    pvc.Spec.VolumeMode,
			NodeAffinity: &core.VolumeNodeAffinity{Required: &core.NodeSelector{NodeSelectorTerms: []core.NodeSelectorTerm{{
				MatchExpressions: []core.NodeSelectorRequirement{{Key: core.LabelHostname, Operator: core.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
	}
}

// NodeOf returns the node a volume is pinned to by a kubernetes.io/hostname
// In requirement of one value ("" when it is not pinned so). It is a pure
// function.
func NodeOf(pv *core.PersistentVolume) string {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return ""
	}
	for _, t := range na.Required.NodeSelectorTerms {
		for _, r := range t.MatchExpressions {
			if r.Key == core.LabelHostname && r.Operator == core.NodeSelectorOpIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}

package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/authz"
)

// validatePodWrite returns why a node's write of a pod is refused, or "".
func (p *NodeRestriction) validatePodWrite(ctx context.Context, node string, a *Attributes) string {
	switch a.Subresource {
	case "":
		switch a.Operation {
		case Create:
			return p.validateMirrorPod(ctx, node, a)
		case Delete:
			if old, ok := a.OldObject.(*core.Pod); !ok || old.Spec.NodeName != node {
				return fmt.Sprintf("node %q can only delete pods with spec.nodeName set to itself", node)
			}
			return ""
		}
		return fmt.Sprintf("unexpected operation %q, node %q can only create and delete mirror pods", a.Operation, node)
	case "status":
		if a.Operation != Update {
			return fmt.Sprintf("unexpected operation %q", a.Operation)
		}
		old, ok1 := a.OldObject.(*core.Pod)
		pod, ok2 := a.Object.(*core.Pod)
		if !ok1 || !ok2 || old.Spec.NodeName != node {
			return fmt.Sprintf("node %q can only update pod status for pods with spec.nodeName set to itself", node)
		}
		if !labelsEqual(pod.Labels, old.Labels) {
			return fmt.Sprintf("node %q cannot update labels through pod status", node)
		}
		return ""
	}
	return fmt.Sprintf("unexpected subresource %q, node %q can only create and delete mirror pods, update pod status, and evict pods", a.Subresource, node)
}

func labelsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// validateMirrorPod: a node creates only mirror pods of its static pods,
// bound to it, owned by its Node, using nothing a node may not read.
func (p *NodeRestriction) validateMirrorPod(ctx context.Context, node string, a *Attributes) string {
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return fmt.Sprintf("unexpected type %T", a.Object)
	}
	if _, mirror := pod.Annotations[core.AnnotationMirrorPod]; !mirror {
		return fmt.Sprintf("pod does not have %q annotation, node %q can only create mirror pods", core.AnnotationMirrorPod, node)
	}
	if pod.Spec.NodeName != node {
		return fmt.Sprintf("node %q can only create pods with spec.nodeName set to itself", node)
	}
	if why := p.validateMirrorOwner(ctx, node, pod); why != "" {
		return why
	}
	if pod.Spec.ServiceAccountName != "" {
		return fmt.Sprintf("node %q can not create pods that reference a service account", node)
	}
	for _, res := range []string{"secrets", "configmaps", "persistentvolumeclaims"} {
		if len(authz.PodReferences(pod, res)) > 0 {
			return fmt.Sprintf("node %q can not create pods that reference %s", node, res)
		}
	}
	return ""
}

// validateMirrorOwner: exactly one owner reference, the node's own Node
// (v1, same UID) as controller, without blockOwnerDeletion.
func (p *NodeRestriction) validateMirrorOwner(ctx context.Context, node string, pod *core.Pod) string {
	refs := pod.OwnerReferences
	switch {
	case len(refs) > 1:
		return fmt.Sprintf("node %q can only create pods with a single owner reference set to itself", node)
	case len(refs) == 0:
		return fmt.Sprintf("node %q can only create pods with an owner reference set to itself", node)
	}
	owner := refs[0]
	if owner.APIVersion != "v1" || owner.Kind != "Node" || owner.Name != node {
		return fmt.Sprintf("node %q can only create pods with an owner reference set to itself", node)
	}
	if owner.Controller == nil || !*owner.Controller {
		return fmt.Sprintf("node %q can only create pods with a controller owner reference set to itself", node)
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return fmt.Sprintf("node %q must not set blockOwnerDeletion on an owner reference", node)
	}
	if p.nodes == nil {
		return fmt.Sprintf("error looking up node %s to verify uid: no node source", node)
	}
	n, err := p.nodes.GetNode(ctx, node)
	switch {
	case err != nil:
		return fmt.Sprintf("error looking up node %s to verify uid: %v", node, err)
	case owner.UID != n.UID:
		return fmt.Sprintf("node %s UID mismatch: expected %s got %s", node, n.UID, owner.UID)
	}
	return ""
}

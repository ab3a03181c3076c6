package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// PodCertificateSources reads what NodeRestriction cross-checks a
// node's PodCertificateRequest against: the pod and its service
// account. A NodeGetter that also implements it enables the check;
// without it every PodCertificateRequest of a node is refused. Missing
// objects are NotFound Statuses. It must be safe for concurrent use.
type PodCertificateSources interface {
	GetPod(ctx context.Context, namespace, name string) (*core.Pod, error)
	GetServiceAccount(ctx context.Context, namespace, name string) (*core.ServiceAccount, error)
}

var pcrResource = meta.GroupResource{Group: certificates.GroupName, Resource: "podcertificaterequests"}

// validatePCRWrite returns why a node's write of a PodCertificateRequest
// is refused, or "" (err is set instead for mismatches a retry may fix,
// such as a pod recreated under the same name): only creates; the
// request names this node and its UID, a pod bound to it with the pod's
// UID, not a mirror pod, the pod's service account and its UID, and a
// signer one of the pod's podCertificate volume sources names.
func (p *NodeRestriction) validatePCRWrite(ctx context.Context, node string, a *Attributes) (string, error) {
	if a.Operation != Create || a.Subresource != "" {
		return fmt.Sprintf("unexpected operation %v", a.Operation), nil
	}
	r, ok := a.Object.(*certificates.PodCertificateRequest)
	if !ok {
		return fmt.Sprintf("unexpected type %T", a.Object), nil
	}
	src, ok := p.nodes.(PodCertificateSources)
	if r.Spec.NodeName != node {
		return fmt.Sprintf("PodCertificateRequest.Spec.NodeName=%q, which is not the requesting node %q", r.Spec.NodeName, node), nil
	}
	if p.nodes == nil || !ok {
		return "pods and service accounts cannot be checked", nil
	}
	n, err := p.nodes.GetNode(ctx, node)
	if err != nil {
		return "", fmt.Errorf("while retrieving node %q named in the PodCertificateRequest: %w", node, err)
	}
	if string(n.UID) != r.Spec.NodeUID {
		return "", apierrors.NewInternalError(fmt.Errorf("PodCertificateRequest names node UID %q, inconsistent with the running node (%q)", r.Spec.NodeUID, n.UID))
	}
	key := a.Namespace + "/" + r.Spec.PodName
	pod, err := src.GetPod(ctx, a.Namespace, r.Spec.PodName)
	if err != nil {
		return "", fmt.Errorf("while retrieving pod %q named in the PodCertificateRequest: %w", key, err)
	}
	switch {
	case string(pod.UID) != r.Spec.PodUID:
		return "", apierrors.NewInternalError(fmt.Errorf("PodCertificateRequest for pod %q contains pod UID (%q) which differs from running pod %q", key, r.Spec.PodUID, pod.UID))
	case pod.Spec.NodeName != node:
		return fmt.Sprintf("pod %q is not running on node %q named in the PodCertificateRequest", key, node), nil
	case pod.Annotations[core.AnnotationMirrorPod] != "":
		return fmt.Sprintf("pod %q is a mirror pod", key), nil
	case r.Spec.ServiceAccountName != pod.Spec.ServiceAccountName:
		return fmt.Sprintf("PodCertificateRequest for pod %q contains serviceAccountName (%q) that differs from running pod (%q)", key, r.Spec.ServiceAccountName, pod.Spec.ServiceAccountName), nil
	}
	sa, err := src.GetServiceAccount(ctx, a.Namespace, r.Spec.ServiceAccountName)
	if err != nil {
		return "", fmt.Errorf("while retrieving service account %q named in the PodCertificateRequest: %w", a.Namespace+"/"+r.Spec.ServiceAccountName, err)
	}
	if string(sa.UID) != r.Spec.ServiceAccountUID {
		return "", apierrors.NewInternalError(fmt.Errorf("PodCertificateRequest for pod %q names service account UID %q, which differs from the running service account (%q)", key, r.Spec.ServiceAccountUID, sa.UID))
	}
	if !podHasCertificateSigner(pod, r.Spec.SignerName) {
		return fmt.Sprintf("pod %q has no podCertificate volume source for signer %q", key, r.Spec.SignerName), nil
	}
	return "", nil
}

// podHasCertificateSigner reports a podCertificate projected source of
// signer among pod's volumes.
func podHasCertificateSigner(pod *core.Pod, signer string) bool {
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.PodCertificate != nil && s.PodCertificate.SignerName == signer {
				return true
			}
		}
	}
	return false
}

package admission

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authz"
)

// NodeGetter reads a Node for NodeRestriction (the UID a mirror pod's
// owner reference must carry). A missing node is a NotFound Status. It
// must be safe for concurrent use.
type NodeGetter interface {
	GetNode(ctx context.Context, name string) (*core.Node, error)
}

// NodeRestriction limits what a node (user system:node:<name> in group
// system:nodes) may write beyond what the Node authorizer can check from
// the request alone, as Kubernetes' NodeRestriction plugin does:
//   - Nodes: only its own; on create no node-restriction.kubernetes.io/
//     label nor a kubernetes.io / k8s.io label outside the kubelet's set
//     (node-role.kubernetes.io/ among them); on update none of those labels
//     added, changed or removed, no change of taints, ownerReferences,
//     configSource, nor (stricter than Kubernetes, as the kubelet never
//     needs it after registering) of any other spec field.
//   - Pods: create only mirror pods bound to itself, owned by its Node
//     (one controller owner reference carrying the Node's UID) and naming
//     no service account, secret, config map or claim; update only the
//     status of pods bound to it, without changing their labels; delete
//     only pods bound to it.
//   - Leases: only its own, in kube-node-lease.
//   - PodCertificateRequests: create only, for a pod bound to it, with
//     that pod's UID and service account (name and UID), its own node
//     UID, and a signer the pod's podCertificate volumes name (needs a
//     NodeGetter that is also a PodCertificateSources).
//
// Anyone else passes untouched. Certificate signing requests are not
// served by orkit, so their check does not exist. Safe for concurrent use.
type NodeRestriction struct {
	Handler
	nodes NodeGetter
}

var _ Validator = (*NodeRestriction)(nil)

// NewNodeRestriction returns the plugin, for CREATE, UPDATE and DELETE,
// reading Nodes from nodes. With nodes nil every mirror pod is refused,
// since its owner's UID cannot be checked.
func NewNodeRestriction(nodes NodeGetter) *NodeRestriction {
	return &NodeRestriction{Handler: Handler{PluginName: "NodeRestriction", Operations: []Operation{Create, Update, Delete}}, nodes: nodes}
}

var (
	nodesResource  = meta.GroupResource{Resource: "nodes"}
	leasesResource = meta.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
)

// Validate refuses a node's writes that Kubernetes' NodeRestriction
// refuses, with its wording (a 403 Status).
func (p *NodeRestriction) Validate(ctx context.Context, a *Attributes) error {
	node, ok := authz.NodeName(a.User)
	if !ok {
		return nil
	}
	var why string
	switch a.Resource.GroupResource() {
	case nodesResource:
		why = validateNodeWrite(node, a)
	case podsResource:
		why = p.validatePodWrite(ctx, node, a)
	case leasesResource:
		why = validateLeaseWrite(node, a)
	case pcrResource:
		var err error
		if why, err = p.validatePCRWrite(ctx, node, a); err != nil {
			return err
		}
	}
	if why == "" {
		return nil
	}
	return nodeForbidden(a, why)
}

// nodeForbidden words a refusal as Kubernetes' admission.NewForbidden.
func nodeForbidden(a *Attributes, why string) error {
	gr := a.Resource.GroupResource()
	name := a.Name
	if name == "" && a.Object != nil {
		name = a.Object.GetObjectMeta().Name
	}
	if name == "" {
		return apierrors.NewForbidden(gr, name, fmt.Sprintf("%s is forbidden: %s", gr, why))
	}
	return apierrors.NewForbidden(gr, name, fmt.Sprintf("%s %q is forbidden: %s", gr, name, why))
}

// validateNodeWrite returns why a write of a Node is refused, or "".
func validateNodeWrite(node string, a *Attributes) string {
	name := a.Name
	if name == "" && a.Object != nil {
		name = a.Object.GetObjectMeta().Name
	}
	if name != node {
		return fmt.Sprintf("node %q is not allowed to modify node %q", node, name)
	}
	switch a.Operation {
	case Create:
		n, ok := a.Object.(*core.Node)
		if !ok {
			return fmt.Sprintf("unexpected type %T", a.Object)
		}
		if bad := forbiddenNodeLabels(modifiedLabels(n.Labels, nil)); len(bad) > 0 {
			return fmt.Sprintf("node %q is not allowed to set the following labels: %s", node, strings.Join(bad, ", "))
		}
	case Update:
		n, ok1 := a.Object.(*core.Node)
		old, ok2 := a.OldObject.(*core.Node)
		if !ok1 || !ok2 {
			return fmt.Sprintf("unexpected type %T", a.Object)
		}
		return nodeUpdateRefusal(node, n, old)
	}
	return ""
}

// nodeUpdateRefusal checks, in Kubernetes' order, what a node may not
// change on its own Node.
func nodeUpdateRefusal(node string, n, old *core.Node) string {
	if len(n.Spec.ConfigSource) > 0 && string(n.Spec.ConfigSource) != string(old.Spec.ConfigSource) {
		return fmt.Sprintf("node %q is not allowed to update configSource to a new non-nil configSource", node)
	}
	if !taintsEqual(n.Spec.Taints, old.Spec.Taints) {
		return fmt.Sprintf("node %q is not allowed to modify taints", node)
	}
	if !reflect.DeepEqual(emptyToNil(n.OwnerReferences), emptyToNil(old.OwnerReferences)) {
		return fmt.Sprintf("node %q is not allowed to modify ownerReferences", node)
	}
	if bad := forbiddenNodeLabels(modifiedLabels(n.Labels, old.Labels)); len(bad) > 0 {
		return fmt.Sprintf("is not allowed to modify labels: %s", strings.Join(bad, ", "))
	}
	if f := changedNodeSpecFields(n.Spec, old.Spec); len(f) > 0 {
		return fmt.Sprintf("node %q is not allowed to modify %s", node, strings.Join(f, ", "))
	}
	return ""
}

func emptyToNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// taintsEqual reports whether a and b are the same taints in the same
// order (an empty list and none are equal).
func taintsEqual(a, b []core.Taint) bool {
	return reflect.DeepEqual(emptyToNil(a), emptyToNil(b))
}

// changedNodeSpecFields names the spec fields (besides taints and
// configSource, checked before) that differ.
func changedNodeSpecFields(n, old core.NodeSpec) []string {
	var out []string
	if n.PodCIDR != old.PodCIDR {
		out = append(out, "spec.podCIDR")
	}
	if !slices.Equal(n.PodCIDRs, old.PodCIDRs) {
		out = append(out, "spec.podCIDRs")
	}
	if n.ProviderID != old.ProviderID {
		out = append(out, "spec.providerID")
	}
	if n.Unschedulable != old.Unschedulable {
		out = append(out, "spec.unschedulable")
	}
	if n.DoNotUseExternalID != old.DoNotUseExternalID {
		out = append(out, "spec.externalID")
	}
	return out
}

// modifiedLabels returns the keys added, removed or changed between a
// and b, sorted.
func modifiedLabels(a, b map[string]string) []string {
	keys := map[string]bool{}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			keys[k] = true
		}
	}
	for k, v := range b {
		if w, ok := a[k]; !ok || v != w {
			keys[k] = true
		}
	}
	out := slices.Collect(maps.Keys(keys))
	sort.Strings(out)
	return out
}

// kubeletLabels are the kubernetes.io labels a kubelet may set on its
// Node (Kubernetes' kubeletapis.IsKubeletLabel), besides those in the
// kubelet.kubernetes.io and node.kubernetes.io namespaces.
var kubeletLabels = map[string]bool{
	core.LabelHostname: true, core.LabelTopologyZone: true, core.LabelTopologyRegion: true,
	"failure-domain.beta.kubernetes.io/zone": true, "failure-domain.beta.kubernetes.io/region": true,
	"beta.kubernetes.io/instance-type": true, core.LabelInstanceTypeStable: true,
	core.LabelOSStable: true, core.LabelArchStable: true, "beta.kubernetes.io/os": true, "beta.kubernetes.io/arch": true,
}

// forbiddenNodeLabels returns the keys a node may not set, change or
// remove: those in the node-restriction.kubernetes.io namespace (or a
// subdomain of it), and kubernetes.io / k8s.io labels outside the
// kubelet's set (node-role.kubernetes.io/ among them).
func forbiddenNodeLabels(keys []string) []string {
	var out []string
	for _, k := range keys {
		ns := labelNamespace(k)
		switch {
		case inNamespace(ns, "node-restriction.kubernetes.io"):
			out = append(out, k)
		case (inNamespace(ns, "kubernetes.io") || inNamespace(ns, "k8s.io")) && !isKubeletLabel(k, ns):
			out = append(out, k)
		}
	}
	return out
}

func isKubeletLabel(key, ns string) bool {
	return kubeletLabels[key] || inNamespace(ns, "kubelet.kubernetes.io") || inNamespace(ns, "node.kubernetes.io")
}

// labelNamespace returns the prefix of a label key before "/", or "".
func labelNamespace(key string) string {
	if ns, _, ok := strings.Cut(key, "/"); ok {
		return ns
	}
	return ""
}

// inNamespace reports whether ns is domain or a subdomain of it.
func inNamespace(ns, domain string) bool {
	return ns == domain || strings.HasSuffix(ns, "."+domain)
}

// validateLeaseWrite returns why a write of a Lease is refused, or "".
func validateLeaseWrite(node string, a *Attributes) string {
	if a.Namespace != authz.NodeLeaseNamespace {
		return fmt.Sprintf("can only access leases in the %q system namespace", authz.NodeLeaseNamespace)
	}
	name := a.Name
	if a.Operation == Create && a.Object != nil {
		name = a.Object.GetObjectMeta().Name
	}
	if name != node {
		return "can only access node lease with the same name as the requesting node"
	}
	return ""
}

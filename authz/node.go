package authz

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/authn"
)

// Node identity and the namespace of node leases.
const (
	NodeUserPrefix     = "system:node:"
	NodesGroup         = "system:nodes"
	NodeLeaseNamespace = "kube-node-lease"
)

// NodeGraph is what the Node authorizer reads about pods: the server
// implements it from its pod cache. Returned pods are shared and must not
// be changed; methods must be safe for concurrent use and cheap.
type NodeGraph interface {
	// PodsOnNode returns the pods whose spec.nodeName is node.
	PodsOnNode(node string) []*core.Pod
	// GetPod returns a pod by namespace and name.
	GetPod(ns, name string) (*core.Pod, bool)
}

// ClaimGetter is an optional ability of a NodeGraph: with it the Node
// authorizer lets a node read the PersistentVolumes bound to the claims
// its pods use. Without it, persistentvolumes are denied.
type ClaimGetter interface {
	GetPersistentVolumeClaim(ns, name string) (*core.PersistentVolumeClaim, bool)
}

// NodeAuthorizer limits each kubelet to what its own pods need. It acts
// on users named system:node:<name> in group system:nodes and has no
// opinion on anyone else; for a node it answers Allow or Deny, never
// NoOpinion, so no later authorizer can grant a node more.
type NodeAuthorizer struct {
	graph NodeGraph
}

var _ Authorizer = (*NodeAuthorizer)(nil)

// Node returns the Node authorizer reading pods from graph.
func Node(graph NodeGraph) *NodeAuthorizer { return &NodeAuthorizer{graph: graph} }

// NodeName returns the node a user is, or ok=false if it is not a node
// (name system:node:<name> and group system:nodes).
func NodeName(u *authn.User) (node string, ok bool) {
	if u == nil || !strings.HasPrefix(u.Name, NodeUserPrefix) || !slices.Contains(u.Groups, NodesGroup) {
		return "", false
	}
	return strings.TrimPrefix(u.Name, NodeUserPrefix), true
}

// Authorize implements Authorizer. A node may:
//   - get its pods; list/watch pods with field selector spec.nodeName=<node>;
//     update/patch pods/status and delete pods bound to it; create pods
//     (NodeRestriction admits only mirror pods bound to and owned by it);
//   - get (or list/watch by metadata.name) secrets, configmaps and
//     persistentvolumeclaims its pods reference (volumes, projected
//     volumes, CSI secrets, env valueFrom, envFrom, imagePullSecrets), and
//     the persistentvolumes bound to those claims;
//   - get/create/update/patch its Node and nodes/status; get, list and
//     watch every Node (what an agent's host-gw routes are made from: each
//     node's pod CIDR and InternalIP; Kubernetes before 1.32's
//     AuthorizeNodeWithSelectors let kubelets read all Nodes too);
//   - get/create/update/patch/delete its Lease in kube-node-lease;
//   - create/patch events; get/list/watch services, endpoints and
//     endpointslices (what a service proxy on the node reads; an agent's
//     proxy runs as its node);
//   - create tokenreviews and subjectaccessreviews (to authenticate and
//     authorize requests to its own API);
//   - create, get, list and watch CertificateSigningRequests, and create
//     certificatesigningrequests/selfnodeclient (the right the approver
//     checks before it approves a renewal of the node's own client
//     certificate; Kubernetes grants both by RBAC);
//   - get, list and watch ClusterTrustBundles; create
//     PodCertificateRequests (NodeRestriction admits only those of its
//     own pods) and list/watch them with field selector
//     spec.nodeName=<node>; get the service accounts its pods run as;
//   - create serviceaccounts/<name>/token for the service accounts its
//     pods run as (the API server checks the token is bound to such a
//     pod, as NodeRestriction does);
//   - get the discovery and health paths.
//
// Creating a Node or Lease carries no name in the attributes: admission
// must check the object's name (as NodeRestriction does).
func (z *NodeAuthorizer) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	node, ok := NodeName(a.User)
	if !ok {
		return DecisionNoOpinion, "", nil
	}
	if node == "" {
		return DecisionDeny, "unknown node: empty node name", nil
	}
	if !a.ResourceRequest {
		if a.Verb == VerbGet && discoveryPath(a.Path) {
			return DecisionAllow, "", nil
		}
		return DecisionDeny, fmt.Sprintf("node %q cannot %s path %q", node, a.Verb, a.Path), nil
	}
	switch a.APIGroup + "/" + a.Resource {
	case "/pods":
		return z.pods(node, a)
	case "/secrets", "/configmaps", "/persistentvolumeclaims":
		return z.podReferenced(node, a)
	case "/serviceaccounts":
		return z.serviceAccountToken(node, a)
	case "/persistentvolumes":
		return z.persistentVolume(node, a)
	case "/nodes":
		return ownNode(node, a)
	case "coordination.k8s.io/leases":
		return ownLease(node, a)
	case "/events", "events.k8s.io/events":
		return verbsOnly(node, a, VerbCreate, VerbPatch)
	case "/services", "/endpoints", "discovery.k8s.io/endpointslices":
		return verbsOnly(node, a, VerbGet, VerbList, VerbWatch)
	case "authentication.k8s.io/tokenreviews", "authorization.k8s.io/subjectaccessreviews":
		return verbsOnly(node, a, VerbCreate)
	case "certificates.k8s.io/certificatesigningrequests":
		if a.Subresource == "selfnodeclient" && a.Verb == VerbCreate {
			return DecisionAllow, "", nil
		}
		return verbsOnly(node, a, VerbCreate, VerbGet, VerbList, VerbWatch)
	case "certificates.k8s.io/clustertrustbundles":
		return verbsOnly(node, a, VerbGet, VerbList, VerbWatch)
	case "certificates.k8s.io/podcertificaterequests":
		return podCertificateRequests(node, a)
	}
	return denyNode(node, a, "")
}

// podCertificateRequests: a node creates PodCertificateRequests (the
// NodeRestriction admission plugin checks they are for its own pods) and
// lists or watches them with field selector spec.nodeName=<node>; it may
// not touch their status.
func podCertificateRequests(node string, a Attributes) (Decision, string, error) {
	switch {
	case a.Subresource != "":
		return denyNode(node, a, "nodes may not access the status subresource of PodCertificateRequests")
	case a.Verb == VerbCreate:
		return DecisionAllow, "", nil
	case a.Verb == VerbList || a.Verb == VerbWatch:
		if selectorRequires(a.FieldSelector, "spec.nodeName", node) {
			return DecisionAllow, "", nil
		}
		return denyNode(node, a, "can only list/watch podcertificaterequests with field selector spec.nodeName="+node)
	}
	return denyNode(node, a, "")
}

// podServiceAccount is the service account p runs as ("default" when
// unset).
func podServiceAccount(p *core.Pod) string {
	if p.Spec.ServiceAccountName == "" {
		return "default"
	}
	return p.Spec.ServiceAccountName
}

// denyNode words a Deny for a node's request.
func denyNode(node string, a Attributes, why string) (Decision, string, error) {
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	reason := fmt.Sprintf("node %q cannot %s %s", node, a.Verb, res)
	if why != "" {
		reason += ": " + why
	}
	return DecisionDeny, reason, nil
}

func noRelationship(node string) (Decision, string, error) {
	return DecisionDeny, fmt.Sprintf("no relationship found between node %q and this object", node), nil
}

func verbsOnly(node string, a Attributes, verbs ...string) (Decision, string, error) {
	if a.Subresource == "" && slices.Contains(verbs, a.Verb) {
		return DecisionAllow, "", nil
	}
	return denyNode(node, a, "")
}

func (z *NodeAuthorizer) pods(node string, a Attributes) (Decision, string, error) {
	switch {
	case a.Subresource == "" && (a.Verb == VerbList || a.Verb == VerbWatch):
		if selectorRequires(a.FieldSelector, "spec.nodeName", node) {
			return DecisionAllow, "", nil
		}
		return denyNode(node, a, "can only list/watch pods with field selector spec.nodeName="+node)
	case a.Subresource == "" && a.Verb == VerbCreate:
		// Mirror pods of its static pods; the NodeRestriction admission
		// plugin refuses anything else (as kube's system:node rules and
		// NodeRestriction split it).
		return DecisionAllow, "", nil
	case a.Subresource == "" && (a.Verb == VerbGet || a.Verb == VerbDelete),
		a.Subresource == "status" && (a.Verb == VerbGet || a.Verb == VerbUpdate || a.Verb == VerbPatch):
		if a.Name == "" {
			return denyNode(node, a, "no object name")
		}
		if p, ok := z.graph.GetPod(a.Namespace, a.Name); ok && p.Spec.NodeName == node {
			return DecisionAllow, "", nil
		}
		return noRelationship(node)
	}
	return denyNode(node, a, "")
}

// singleName returns the object a read names: Name, or for list and
// watch a metadata.name field selector.
func singleName(a Attributes) string {
	if a.Name != "" || a.Verb == VerbGet {
		return a.Name
	}
	name, _ := selectorEquals(a.FieldSelector, "metadata.name")
	return name
}

func (z *NodeAuthorizer) podReferenced(node string, a Attributes) (Decision, string, error) {
	if !a.IsReadOnly() || a.Subresource != "" {
		return denyNode(node, a, "can only read individual objects of this type")
	}
	name := singleName(a)
	if name == "" || a.Namespace == "" {
		return denyNode(node, a, "can only read individual objects of this type")
	}
	for _, p := range z.graph.PodsOnNode(node) {
		if p.Namespace == a.Namespace && slices.Contains(podReferences(p, a.Resource), name) {
			return DecisionAllow, "", nil
		}
	}
	return noRelationship(node)
}

// serviceAccountToken allows creating a token of an account one of the
// node's pods runs as.
func (z *NodeAuthorizer) serviceAccountToken(node string, a Attributes) (Decision, string, error) {
	if a.Subresource == "" && a.Verb == VerbGet && a.Name != "" && a.Namespace != "" {
		// Reading its pods' service accounts (their UIDs go into
		// PodCertificateRequests), as kube's graph allows it.
		for _, p := range z.graph.PodsOnNode(node) {
			if p.Namespace == a.Namespace && podServiceAccount(p) == a.Name {
				return DecisionAllow, "", nil
			}
		}
		return noRelationship(node)
	}
	if a.Subresource != "token" || a.Verb != VerbCreate || a.Name == "" || a.Namespace == "" {
		return denyNode(node, a, "can only create tokens for individual service accounts")
	}
	for _, p := range z.graph.PodsOnNode(node) {
		if p.Namespace == a.Namespace && p.Spec.ServiceAccountName == a.Name {
			return DecisionAllow, "", nil
		}
	}
	return noRelationship(node)
}

func (z *NodeAuthorizer) persistentVolume(node string, a Attributes) (Decision, string, error) {
	claims, ok := z.graph.(ClaimGetter)
	name := singleName(a)
	if !a.IsReadOnly() || a.Subresource != "" || name == "" || !ok {
		return denyNode(node, a, "can only read individual volumes bound to its pods' claims")
	}
	for _, p := range z.graph.PodsOnNode(node) {
		for _, claim := range podReferences(p, "persistentvolumeclaims") {
			if c, ok := claims.GetPersistentVolumeClaim(p.Namespace, claim); ok && c.Spec.VolumeName == name {
				return DecisionAllow, "", nil
			}
		}
	}
	return noRelationship(node)
}

func ownNode(node string, a Attributes) (Decision, string, error) {
	switch {
	case a.Subresource == "" && (a.Verb == VerbList || a.Verb == VerbWatch || a.Verb == VerbGet):
		return DecisionAllow, "", nil
	case a.Subresource == "" && a.Verb == VerbCreate && (a.Name == "" || a.Name == node):
		return DecisionAllow, "", nil
	case (a.Subresource == "" || a.Subresource == "status") &&
		(a.Verb == VerbGet || a.Verb == VerbUpdate || a.Verb == VerbPatch):
		if a.Name == node {
			return DecisionAllow, "", nil
		}
		return denyNode(node, a, "can only access its own node")
	}
	return denyNode(node, a, "")
}

func ownLease(node string, a Attributes) (Decision, string, error) {
	if a.Subresource != "" || a.Namespace != NodeLeaseNamespace {
		return denyNode(node, a, "can only access its own lease in namespace "+NodeLeaseNamespace)
	}
	switch a.Verb {
	case VerbCreate:
		if a.Name == "" || a.Name == node {
			return DecisionAllow, "", nil
		}
	case VerbGet, VerbUpdate, VerbPatch, VerbDelete:
		if a.Name == node {
			return DecisionAllow, "", nil
		}
	default:
		return denyNode(node, a, "")
	}
	return denyNode(node, a, "can only access its own lease")
}

// discoveryPath reports whether path is one of the discovery and health
// paths every authenticated user may get (system:discovery).
func discoveryPath(path string) bool {
	switch path {
	case "/api", "/apis", "/version", "/version/", "/healthz", "/livez", "/readyz", "/openapi":
		return true
	}
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/apis/") || strings.HasPrefix(path, "/openapi/")
}

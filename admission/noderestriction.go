package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authz"
)

// NodeRestriction limits what a node (user system:node:<name> in group
// system:nodes) may write to what the Node authorizer cannot check from
// the request alone: it may create and change only its own Node and its
// own Lease, and change only pods bound to it. Others pass untouched.
type NodeRestriction struct {
	Handler
}

var _ Validator = (*NodeRestriction)(nil)

// NewNodeRestriction returns the plugin, for CREATE, UPDATE and DELETE.
func NewNodeRestriction() *NodeRestriction {
	return &NodeRestriction{Handler{PluginName: "NodeRestriction", Operations: []Operation{Create, Update, Delete}}}
}

// Validate refuses a node's writes to objects that are not its own.
func (p *NodeRestriction) Validate(_ context.Context, a *Attributes) error {
	if a.User == nil {
		return nil
	}
	node, ok := authz.NodeName(a.User)
	if !ok {
		return nil
	}
	gr := a.Resource.GroupResource()
	forbid := func(why string) error {
		return apierrors.NewForbidden(gr, a.Name, fmt.Sprintf("%s %q is forbidden: node %q %s", gr, a.Name, node, why))
	}
	switch {
	case gr == meta.GroupResource{Resource: "nodes"}:
		if a.Name != node {
			return forbid("is not allowed to modify node " + fmt.Sprintf("%q", a.Name))
		}
	case gr == meta.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}:
		if a.Name != node || a.Namespace != "kube-node-lease" {
			return forbid("may only write its own Lease in namespace kube-node-lease")
		}
	case gr == meta.GroupResource{Resource: "pods"}:
		obj := a.OldObject
		if obj == nil {
			obj = a.Object
		}
		pod, ok := obj.(*core.Pod)
		if !ok || pod.Spec.NodeName != node {
			return forbid("can only modify pods bound to itself")
		}
	}
	return nil
}

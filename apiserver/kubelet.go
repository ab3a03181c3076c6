package apiserver

import (
	"context"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/apiserver/kubeletclient"
)

// nodeStorage reads Nodes for the kubelet client from the server's own
// storage: a consistent read, as kube-apiserver's node connection info
// getter makes, so a kubelet endpoint a node has just written is seen.
type nodeStorage struct{ s *Server }

var _ kubeletclient.NodeGetter = nodeStorage{}

// Get returns the Node name, or its NotFound Status.
func (n nodeStorage) Get(ctx context.Context, name string) (*core.Node, error) {
	st, ok := n.s.Storage(coreGVR("nodes"))
	if !ok {
		return nil, apierrors.NewNotFound(coreGVR("nodes").GroupResource(), name)
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	node, ok := obj.(*core.Node)
	if !ok {
		return nil, apierrors.NewNotFound(coreGVR("nodes").GroupResource(), name)
	}
	return node, nil
}

package node

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version are the API group and version of RuntimeClass.
const (
	GroupName = "node.k8s.io"
	Version   = "v1"
)

// RuntimeClass names a container runtime configuration that pods select
// with spec.runtimeClassName. It is cluster-scoped and immutable but for
// its metadata.
type RuntimeClass struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Handler is the CRI configuration that runs the class's pods; a DNS
	// label, required and immutable.
	Handler string `json:"handler"`
	// Overhead is what running a pod of this class costs beyond its
	// containers; admission copies it into the pod's spec.overhead.
	Overhead *Overhead `json:"overhead,omitempty"`
	// Scheduling restricts the class's pods to nodes that support it;
	// admission merges it into the pod's node selector and tolerations.
	Scheduling *Scheduling `json:"scheduling,omitempty"`
}

// RuntimeClassList is a list of RuntimeClasses.
type RuntimeClassList = meta.List[RuntimeClass]

// Overhead is the resource overhead of a pod of a RuntimeClass.
type Overhead struct {
	PodFixed core.ResourceList `json:"podFixed,omitempty"`
}

// Scheduling is where the pods of a RuntimeClass may run.
type Scheduling struct {
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Tolerations  []core.Toleration `json:"tolerations,omitempty"`
}

package metrics

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version name the API group.
const (
	GroupName = "metrics.k8s.io"
	Version   = "v1beta1"
)

// GroupVersion returns metrics.k8s.io/v1beta1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// NodeMetrics is the resource usage of one node (named like it), measured
// over Window ending at Timestamp.
type NodeMetrics struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Timestamp       meta.Time         `json:"timestamp"`
	Window          meta.Duration     `json:"window"`
	Usage           core.ResourceList `json:"usage"`
}

// NodeMetricsList is a list of NodeMetrics.
type NodeMetricsList = meta.List[NodeMetrics]

// PodMetrics is the resource usage of the containers of one pod (named
// like it), measured over Window ending at Timestamp.
type PodMetrics struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Timestamp       meta.Time          `json:"timestamp"`
	Window          meta.Duration      `json:"window"`
	Containers      []ContainerMetrics `json:"containers"`
}

// PodMetricsList is a list of PodMetrics.
type PodMetricsList = meta.List[PodMetrics]

// ContainerMetrics is the usage of one container.
type ContainerMetrics struct {
	Name  string            `json:"name"`
	Usage core.ResourceList `json:"usage"`
}

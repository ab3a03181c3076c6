package autoscaling

import "github.com/orkit/orkit/api/meta"

// GroupName is the API group of Scale.
const GroupName = "autoscaling"

// Version is the API version of Scale.
const Version = "v1"

// Kind returns the group, version and kind of Scale.
func Kind() meta.GroupVersionKind {
	return meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "Scale"}
}

// Scale is the desired and observed replica count of a scalable resource.
// Its metadata is the owning object's (name, namespace, uid,
// resourceVersion), so an update with a stale resourceVersion conflicts.
type Scale struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ScaleSpec   `json:"spec,omitempty"`
	Status          ScaleStatus `json:"status,omitempty"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is the observed replica count and the label selector of the
// pods counted, in the string form of ?labelSelector=.
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

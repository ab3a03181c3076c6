package core

import "github.com/orkit/orkit/api/meta"

// LimitRange sets per-object resource bounds and defaults in a namespace.
type LimitRange struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            LimitRangeSpec `json:"spec,omitempty"`
}

// LimitRangeList is a list of limit ranges.
type LimitRangeList = meta.List[LimitRange]

// LimitType is the kind of object a limit applies to.
type LimitType string

// The limit types.
const (
	LimitTypePod                   LimitType = "Pod"
	LimitTypeContainer             LimitType = "Container"
	LimitTypePersistentVolumeClaim LimitType = "PersistentVolumeClaim"
)

// LimitRangeSpec lists the limits.
type LimitRangeSpec struct {
	Limits []LimitRangeItem `json:"limits"`
}

// LimitRangeItem bounds one kind of object.
type LimitRangeItem struct {
	Type                 LimitType    `json:"type"`
	Max                  ResourceList `json:"max,omitempty"`
	Min                  ResourceList `json:"min,omitempty"`
	Default              ResourceList `json:"default,omitempty"`
	DefaultRequest       ResourceList `json:"defaultRequest,omitempty"`
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty"`
}

package storage

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// VolumeAttachment records that a CSI driver is to attach (or has
// attached) a volume to a node. It is cluster-scoped; its spec is
// immutable and its status is written through the status subresource.
// In Kubernetes the attach/detach controller creates it and the driver's
// external attacher reports on it; orkit serves the kind and attaches
// nothing.
type VolumeAttachment struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is what to attach where; immutable.
	Spec VolumeAttachmentSpec `json:"spec"`
	// Status is what the attacher reports.
	Status VolumeAttachmentStatus `json:"status,omitempty"`
}

// VolumeAttachmentList is a list of VolumeAttachments.
type VolumeAttachmentList = meta.List[VolumeAttachment]

// VolumeAttachmentSpec names the attacher, the volume and the node.
type VolumeAttachmentSpec struct {
	// Attacher is the CSI driver that attaches the volume (a CSI driver
	// name); required.
	Attacher string `json:"attacher"`
	// Source is the volume.
	Source VolumeAttachmentSource `json:"source"`
	// NodeName is the node the volume is attached to; required.
	NodeName string `json:"nodeName"`
}

// VolumeAttachmentSource is the volume to attach: exactly one of a
// PersistentVolume by name or an inline CSI volume spec.
type VolumeAttachmentSource struct {
	// PersistentVolumeName names the PersistentVolume.
	PersistentVolumeName *string `json:"persistentVolumeName,omitempty"`
	// InlineVolumeSpec is a pod's inline volume translated to a CSI
	// PersistentVolume spec.
	InlineVolumeSpec *core.PersistentVolumeSpec `json:"inlineVolumeSpec,omitempty"`
}

// VolumeAttachmentStatus is what the attacher reports.
type VolumeAttachmentStatus struct {
	// Attached says whether the volume is attached.
	Attached bool `json:"attached"`
	// AttachmentMetadata is what the driver returned on attach, passed to
	// the node's mount (at most 256 KiB of keys and values).
	AttachmentMetadata map[string]string `json:"attachmentMetadata,omitempty"`
	// AttachError is the last attach failure.
	AttachError *VolumeError `json:"attachError,omitempty"`
	// DetachError is the last detach failure.
	DetachError *VolumeError `json:"detachError,omitempty"`
}

// VolumeError is an attach or detach failure.
type VolumeError struct {
	// Time is when the error happened.
	Time meta.Time `json:"time,omitzero"`
	// Message describes the error (at most 1024 characters).
	Message string `json:"message,omitempty"`
	// ErrorCode is the driver's numeric gRPC code (not negative).
	ErrorCode *int32 `json:"errorCode,omitempty"`
}

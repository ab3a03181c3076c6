package storage

import "github.com/orkit/orkit/api/meta"

// CSIDriver describes a CSI volume driver installed in the cluster: how
// the kubelet and the attach/detach controller treat its volumes. It is
// cluster-scoped and named after the driver. orkit serves the kind and
// runs no CSI drivers.
type CSIDriver struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the driver's behaviour.
	Spec CSIDriverSpec `json:"spec"`
}

// CSIDriverList is a list of CSIDrivers.
type CSIDriverList = meta.List[CSIDriver]

// FSGroupPolicy says whether the kubelet changes a volume's ownership to
// the pod's fsGroup.
type FSGroupPolicy string

// The fsGroup policies.
const (
	// ReadWriteOnceWithFSTypeFSGroupPolicy changes ownership only for
	// ReadWriteOnce volumes with an fsType (the default).
	ReadWriteOnceWithFSTypeFSGroupPolicy FSGroupPolicy = "ReadWriteOnceWithFSType"
	// FileFSGroupPolicy always changes ownership.
	FileFSGroupPolicy FSGroupPolicy = "File"
	// NoneFSGroupPolicy never changes ownership.
	NoneFSGroupPolicy FSGroupPolicy = "None"
)

// VolumeLifecycleMode is a way a driver's volumes are used.
type VolumeLifecycleMode string

// The lifecycle modes.
const (
	// VolumeLifecyclePersistent volumes are PersistentVolumes (the default).
	VolumeLifecyclePersistent VolumeLifecycleMode = "Persistent"
	// VolumeLifecycleEphemeral volumes are inline in a pod and live with it.
	VolumeLifecycleEphemeral VolumeLifecycleMode = "Ephemeral"
)

// CSIDriverSpec is a driver's behaviour. kube-apiserver defaults every
// pointer field but NodeAllocatableUpdatePeriodSeconds and
// ServiceAccountTokenInSecrets (DefaultCSIDriver).
type CSIDriverSpec struct {
	// AttachRequired says volumes must be attached (VolumeAttachment)
	// before they are mounted; default true; immutable.
	AttachRequired *bool `json:"attachRequired,omitempty"`
	// PodInfoOnMount passes the pod's name, namespace, UID and service
	// account to the mount; default false.
	PodInfoOnMount *bool `json:"podInfoOnMount,omitempty"`
	// VolumeLifecycleModes are the modes the driver supports; default
	// [Persistent]; immutable.
	VolumeLifecycleModes []VolumeLifecycleMode `json:"volumeLifecycleModes,omitempty"`
	// StorageCapacity says the scheduler considers the driver's
	// CSIStorageCapacity objects; default false.
	StorageCapacity *bool `json:"storageCapacity,omitempty"`
	// FSGroupPolicy is how the pod's fsGroup applies; default
	// ReadWriteOnceWithFSType.
	FSGroupPolicy *FSGroupPolicy `json:"fsGroupPolicy,omitempty"`
	// TokenRequests are the service account tokens passed to the mount,
	// one per audience (unique).
	TokenRequests []TokenRequest `json:"tokenRequests,omitempty"`
	// RequiresRepublish says mounts are refreshed periodically; default
	// false.
	RequiresRepublish *bool `json:"requiresRepublish,omitempty"`
	// SELinuxMount says the driver supports the SELinux context mount
	// option; default false.
	SELinuxMount *bool `json:"seLinuxMount,omitempty"`
	// NodeAllocatableUpdatePeriodSeconds is how often the kubelet
	// refreshes the CSINode's allocatable count (at least 10).
	NodeAllocatableUpdatePeriodSeconds *int64 `json:"nodeAllocatableUpdatePeriodSeconds,omitempty"`
	// ServiceAccountTokenInSecrets passes the tokens in the secrets
	// field of the mount call; needs TokenRequests.
	ServiceAccountTokenInSecrets *bool `json:"serviceAccountTokenInSecrets,omitempty"`
	// PreventPodSchedulingIfMissing keeps pods using the driver off nodes
	// whose CSINode lacks it; default false.
	PreventPodSchedulingIfMissing *bool `json:"preventPodSchedulingIfMissing,omitempty"`
}

// TokenRequest asks for a service account token for an audience.
type TokenRequest struct {
	// Audience is the token's audience ("" for the API server's).
	Audience string `json:"audience"`
	// ExpirationSeconds is the token's lifetime: 10 minutes to 2^32
	// seconds.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
}

// DefaultCSIDriver fills what kube-apiserver defaults: attachRequired
// true; podInfoOnMount, storageCapacity, requiresRepublish, seLinuxMount
// and preventPodSchedulingIfMissing false; fsGroupPolicy
// ReadWriteOnceWithFSType; volumeLifecycleModes [Persistent].
func DefaultCSIDriver(d *CSIDriver) {
	s := &d.Spec
	setBool := func(p **bool, v bool) {
		if *p == nil {
			*p = &v
		}
	}
	setBool(&s.AttachRequired, true)
	setBool(&s.PodInfoOnMount, false)
	setBool(&s.StorageCapacity, false)
	setBool(&s.RequiresRepublish, false)
	setBool(&s.SELinuxMount, false)
	setBool(&s.PreventPodSchedulingIfMissing, false)
	if s.FSGroupPolicy == nil {
		p := ReadWriteOnceWithFSTypeFSGroupPolicy
		s.FSGroupPolicy = &p
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []VolumeLifecycleMode{VolumeLifecyclePersistent}
	}
}

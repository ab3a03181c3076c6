package core

import (
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// Volume is a named volume of a pod; exactly one source is set.
type Volume struct {
	Name         string `json:"name"`
	VolumeSource `json:",inline"`
}

// VolumeSource is where a pod volume's content comes from; exactly one
// field is set.
type VolumeSource struct {
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	NFS                   *NFSVolumeSource                   `json:"nfs,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	CSI                   *CSIVolumeSource                   `json:"csi,omitempty"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty"`
	Image                 *ImageVolumeSource                 `json:"image,omitempty"`
	Ephemeral             *EphemeralVolumeSource             `json:"ephemeral,omitempty"`
}

// HostPathType says what must exist at a host path.
type HostPathType string

// The host path types.
const (
	HostPathUnset             HostPathType = ""
	HostPathDirectoryOrCreate HostPathType = "DirectoryOrCreate"
	HostPathDirectory         HostPathType = "Directory"
	HostPathFileOrCreate      HostPathType = "FileOrCreate"
	HostPathFile              HostPathType = "File"
	HostPathSocket            HostPathType = "Socket"
	HostPathCharDev           HostPathType = "CharDevice"
	HostPathBlockDev          HostPathType = "BlockDevice"
)

// HostPathVolumeSource mounts a path of the node.
type HostPathVolumeSource struct {
	Path string        `json:"path"`
	Type *HostPathType `json:"type,omitempty"`
}

// StorageMedium is where an emptyDir lives.
type StorageMedium string

// The storage media.
const (
	StorageMediumDefault   StorageMedium = ""
	StorageMediumMemory    StorageMedium = "Memory"
	StorageMediumHugePages StorageMedium = "HugePages"
)

// EmptyDirVolumeSource is a scratch directory that lives as long as the pod.
type EmptyDirVolumeSource struct {
	Medium    StorageMedium      `json:"medium,omitempty"`
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
}

// KeyToPath projects one key of a Secret or ConfigMap to a file.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	Mode *int32 `json:"mode,omitempty"`
}

// SecretVolumeDefaultMode is the default file mode of secret, configMap,
// downwardAPI and projected volumes (0644).
const SecretVolumeDefaultMode int32 = 0o644

// SecretVolumeSource mounts a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	DefaultMode          *int32      `json:"defaultMode,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// NFSVolumeSource mounts an NFS export.
type NFSVolumeSource struct {
	Server   string `json:"server"`
	Path     string `json:"path"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts the volume bound to a claim.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// DownwardAPIVolumeSource writes pod fields and container resources to files.
type DownwardAPIVolumeSource struct {
	Items       []DownwardAPIVolumeFile `json:"items,omitempty"`
	DefaultMode *int32                  `json:"defaultMode,omitempty"`
}

// DownwardAPIVolumeFile is one file of a downward API volume.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	Mode             *int32                 `json:"mode,omitempty"`
}

// CSIVolumeSource is an inline CSI volume; orkit carries it unchanged.
type CSIVolumeSource struct {
	Driver               string                `json:"driver"`
	ReadOnly             *bool                 `json:"readOnly,omitempty"`
	FSType               *string               `json:"fsType,omitempty"`
	VolumeAttributes     map[string]string     `json:"volumeAttributes,omitempty"`
	NodePublishSecretRef *LocalObjectReference `json:"nodePublishSecretRef,omitempty"`
}

// ImageVolumeSource mounts an OCI image's content.
type ImageVolumeSource struct {
	Reference  string     `json:"reference,omitempty"`
	PullPolicy PullPolicy `json:"pullPolicy,omitempty"`
}

// ProjectedVolumeSource merges several sources into one directory.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty"`
}

// VolumeProjection is one source of a projected volume; exactly one field is set.
type VolumeProjection struct {
	Secret              *SecretProjection              `json:"secret,omitempty"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty"`
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
	ClusterTrustBundle  *ClusterTrustBundleProjection  `json:"clusterTrustBundle,omitempty"`
	PodCertificate      *PodCertificateProjection      `json:"podCertificate,omitempty"`
}

// ClusterTrustBundleProjection writes the trust anchors of
// certificates.k8s.io ClusterTrustBundles to one file (Path): the bundle
// Name, or every bundle of SignerName matching LabelSelector (a nil
// selector matches none, an empty one all), deduplicated. Unless
// Optional, finding nothing keeps the pod from starting.
type ClusterTrustBundleProjection struct {
	Name          *string             `json:"name,omitempty"`
	SignerName    *string             `json:"signerName,omitempty"`
	LabelSelector *meta.LabelSelector `json:"labelSelector,omitempty"`
	Optional      *bool               `json:"optional,omitempty"`
	Path          string              `json:"path"`
}

// PodCertificateProjection has the kubelet generate a key of KeyType,
// ask SignerName for a certificate (a certificates.k8s.io
// PodCertificateRequest) and write the key and chain: together in
// CredentialBundlePath (key first) and/or apart in KeyPath and
// CertificateChainPath; refreshed before the certificate expires.
type PodCertificateProjection struct {
	SignerName           string            `json:"signerName"`
	KeyType              string            `json:"keyType"`
	MaxExpirationSeconds *int32            `json:"maxExpirationSeconds,omitempty"`
	CredentialBundlePath string            `json:"credentialBundlePath,omitempty"`
	KeyPath              string            `json:"keyPath,omitempty"`
	CertificateChainPath string            `json:"certificateChainPath,omitempty"`
	UserAnnotations      map[string]string `json:"userAnnotations,omitempty"`
}

// SecretProjection projects a Secret's keys.
type SecretProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// ConfigMapProjection projects a ConfigMap's keys.
type ConfigMapProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// DownwardAPIProjection projects pod fields.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// ServiceAccountTokenProjection projects a bound service account token.
type ServiceAccountTokenProjection struct {
	Audience          string `json:"audience,omitempty"`
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	Path              string `json:"path"`
}

// EphemeralVolumeSource is a volume provisioned for the pod from a claim
// template; orkit carries the template unchanged.
type EphemeralVolumeSource struct {
	VolumeClaimTemplate meta.RawJSON `json:"volumeClaimTemplate,omitempty"`
}

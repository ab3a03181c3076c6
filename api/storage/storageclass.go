package storage

import (
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version name the API group.
const (
	GroupName = "storage.k8s.io"
	Version   = "v1"
)

// GroupVersion returns storage.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// Annotations on StorageClasses and claims.
const (
	// AnnotationDefaultClass set to "true" marks the class that claims
	// naming none get (the DefaultStorageClass admission plugin).
	AnnotationDefaultClass = "storageclass.kubernetes.io/is-default-class"
	// AnnotationBetaDefaultClass is the deprecated beta spelling of
	// AnnotationDefaultClass, still honoured as Kubernetes does.
	AnnotationBetaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
	// AnnotationSelectedNode on a claim names the node the scheduler chose
	// for the first pod that uses it (WaitForFirstConsumer): the
	// provisioner makes the volume reachable from that node.
	AnnotationSelectedNode = "volume.kubernetes.io/selected-node"
)

// VolumeBindingMode says when a claim of a class is bound and provisioned.
type VolumeBindingMode string

// The binding modes.
const (
	// VolumeBindingImmediate binds and provisions as soon as the claim
	// exists.
	VolumeBindingImmediate VolumeBindingMode = "Immediate"
	// VolumeBindingWaitForFirstConsumer waits for a pod using the claim
	// to be scheduled, then provisions on the node the scheduler chose.
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// StorageClass describes a class of dynamically provisioned volumes. It
// is cluster-scoped; its provisioner, parameters, reclaim policy and
// binding mode are immutable.
type StorageClass struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Provisioner names the provisioner that makes the class's volumes
	// (a qualified name, such as "orkit.io/local-path"); required.
	Provisioner string `json:"provisioner"`
	// Parameters are passed to the provisioner unchanged (at most 256 KiB
	// of keys and values).
	Parameters map[string]string `json:"parameters,omitempty"`
	// ReclaimPolicy is what happens to a provisioned volume when its claim
	// is deleted: Delete (the default) or Retain.
	ReclaimPolicy *core.PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty"`
	// MountOptions are copied to provisioned volumes.
	MountOptions []string `json:"mountOptions,omitempty"`
	// AllowVolumeExpansion says whether claims of the class may grow.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty"`
	// VolumeBindingMode is when claims are bound; default Immediate.
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty"`
	// AllowedTopologies restricts where volumes may be provisioned.
	AllowedTopologies []core.TopologySelectorTerm `json:"allowedTopologies,omitempty"`
}

// StorageClassList is a list of StorageClasses.
type StorageClassList = meta.List[StorageClass]

// IsDefaultClass reports whether the class is annotated as the default
// (either spelling of the annotation set to "true").
func IsDefaultClass(sc *StorageClass) bool {
	return sc.Annotations[AnnotationDefaultClass] == "true" || sc.Annotations[AnnotationBetaDefaultClass] == "true"
}

// DefaultClass returns the default class among classes: the one
// IsDefaultClass holds for, the newest when several do (then the first by
// name), as Kubernetes chooses; nil when there is none. It is a pure
// function.
func DefaultClass(classes []*StorageClass) *StorageClass {
	var best *StorageClass
	for _, sc := range classes {
		if !IsDefaultClass(sc) {
			continue
		}
		t, bt := sc.CreationTimestamp.Time, time.Time{}
		if best != nil {
			bt = best.CreationTimestamp.Time
		}
		if best == nil || t.After(bt) || t.Equal(bt) && sc.Name < best.Name {
			best = sc
		}
	}
	return best
}

// BindingMode returns the class's binding mode, Immediate when unset.
func BindingMode(sc *StorageClass) VolumeBindingMode {
	if sc == nil || sc.VolumeBindingMode == nil {
		return VolumeBindingImmediate
	}
	return *sc.VolumeBindingMode
}

// ReclaimPolicyOf returns the class's reclaim policy, Delete when unset.
func ReclaimPolicyOf(sc *StorageClass) core.PersistentVolumeReclaimPolicy {
	if sc == nil || sc.ReclaimPolicy == nil {
		return core.PersistentVolumeReclaimDelete
	}
	return *sc.ReclaimPolicy
}

// DefaultStorageClass fills what kube-apiserver defaults: the reclaim
// policy Delete and the binding mode Immediate.
func DefaultStorageClass(sc *StorageClass) {
	if sc.ReclaimPolicy == nil {
		p := core.PersistentVolumeReclaimDelete
		sc.ReclaimPolicy = &p
	}
	if sc.VolumeBindingMode == nil {
		m := VolumeBindingImmediate
		sc.VolumeBindingMode = &m
	}
}

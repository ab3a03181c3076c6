// Package storage holds the storage.k8s.io/v1 StorageClass kind — a
// class of dynamically provisioned volumes: the provisioner that makes
// them, its parameters, the reclaim policy and mount options the volumes
// get, and when binding happens (Immediate or WaitForFirstConsumer) —
// with its defaulting, validation (kube-apiserver's messages) and scheme
// registration. The package also holds the kinds CSI drivers use —
// CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity and
// VolumeAttributesClass — with kube-apiserver's defaulting and
// validation; orkit serves them and runs no CSI drivers. Every kind
// marshals to JSON exactly as Kubernetes' storage/v1. The
// DefaultStorageClass admission plugin
// (admission.DefaultStorageClass) gives claims that name no class the
// class annotated AnnotationDefaultClass.
package storage

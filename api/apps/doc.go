// Package apps holds the apps/v1 workload kinds — Deployment, ReplicaSet,
// StatefulSet, DaemonSet and ControllerRevision — with the well-known labels
// and annotations their controllers use, defaulting and validation as
// Kubernetes' apps/v1 does them, and scheme registration.
//
// Types marshal to JSON exactly as Kubernetes' apps/v1 for every field they
// carry; pod templates and volume claim templates are api/core types, and
// their defaulting and validation are core's. Values are plain data with no
// internal synchronisation: share them read-only or copy them
// (meta.DeepCopy).
package apps

// Package batch holds the batch/v1 kinds — Job and CronJob — with the
// well-known labels, annotations and finalizer the Job controller uses,
// defaulting and validation as Kubernetes' batch/v1 does them, and scheme
// registration.
//
// Types marshal to JSON exactly as Kubernetes' batch/v1 for every field
// they carry; pod templates are api/core types, and their defaulting and
// validation are core's. A CronJob's schedule is parsed by the cron
// subpackage. Values are plain data with no internal synchronisation:
// share them read-only or copy them (meta.DeepCopy).
package batch

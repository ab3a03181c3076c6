// Package storagemigration holds the storagemigration.k8s.io/v1
// StorageVersionMigration kind, with kube-apiserver's validation and
// scheme registration: a request to rewrite every stored object of one
// resource through the API server, so each is stored again in the
// current storage version (and encryption). The migration controller
// (controller/storageversionmigration) does the rewriting and reports
// progress in the status conditions Running, Succeeded and Failed.
//
// StorageVersionMigration marshals to JSON exactly as Kubernetes'
// storagemigration/v1 for every field it carries. Values are plain data
// with no internal synchronisation.
package storagemigration

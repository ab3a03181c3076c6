package apiserver

import (
	"context"
	"reflect"
	"time"

	"github.com/orkit/orkit/api/apiextensions"
	"github.com/orkit/orkit/api/meta"
)

// crdGVR is the resource of CustomResourceDefinitions.
var crdGVR = meta.GroupVersionResource{Group: apiextensions.GroupName, Version: apiextensions.Version, Resource: "customresourcedefinitions"}

// CustomResourceCleanupFinalizer holds a CustomResourceDefinition being
// deleted until its custom resources are gone, as in Kubernetes.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// crdStrategy is the Strategy of CustomResourceDefinitions, as
// kube-apiserver's: the status is the server's (stored versions follow the
// storage version), the generation moves with the spec, and a deletion
// starts by adding the cleanup finalizer and the Terminating condition,
// which the CRD controller resolves by deleting the custom resources.
type crdStrategy struct{ *DefaultStrategy }

var (
	_ Strategy       = crdStrategy{}
	_ DeleteStrategy = crdStrategy{}
)

// PrepareForCreate resets the status and sets generation 1.
func (s crdStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	s.DefaultStrategy.PrepareForCreate(ctx, obj)
	apiextensions.PrepareForCreate(obj.(*apiextensions.CustomResourceDefinition))
}

// PrepareForUpdate keeps the status on a spec update (adding a new storage
// version to the stored versions) and the spec on a status update.
func (s crdStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
	if subresource == "status" {
		return
	}
	crd, prev := obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition)
	apiextensions.PrepareForUpdate(crd, prev, !reflect.DeepEqual(crd.Spec, prev.Spec))
}

// BeginDelete adds the cleanup finalizer and the Terminating condition.
func (crdStrategy) BeginDelete(obj meta.Object) {
	crd := obj.(*apiextensions.CustomResourceDefinition)
	if !crd.HasFinalizer(CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, CustomResourceCleanupFinalizer)
	}
	crd.SetCondition(apiextensions.CustomResourceDefinitionCondition{
		Type: apiextensions.Terminating, Status: meta.ConditionTrue, Reason: "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	})
}

// Pending is false: the finalizer holds the CRD.
func (crdStrategy) Pending(meta.Object) bool { return false }

// crdTable shows Name and Created At, as kube-apiserver's default table.
var crdTable = &TableConvertor{
	NoDefaults: true,
	Columns: []TableColumn{nameColumn, {Name: "Created At", Type: "date",
		Description: "CreationTimestamp is a timestamp representing the server time when this object was created."}},
	Cells: func(obj meta.Object) []any {
		m := obj.GetObjectMeta()
		return []any{m.Name, m.CreationTimestamp.UTC().Format(time.RFC3339)}
	},
}

// crdExtras serves CustomResourceDefinitions with their strategy and
// table (builtinExtras).
func crdExtras(r *Resource) {
	r.Strategy = crdStrategy{NewDefaultStrategy(r.Type)}
	r.Table = crdTable
}

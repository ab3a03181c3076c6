package apiserver

import (
	"fmt"
	"strconv"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
)

// fieldLabels returns the field selector labels a resource accepts, as
// kube-apiserver's per-kind field label conversion does: metadata.name;
// metadata.namespace for namespaced kinds and for kinds with no fields of
// their own (kube's default conversion takes it for every kind, and it
// matches only "" on a cluster-scoped one); and every label its Fields
// sets, read from a zero object.
func fieldLabels(res Resource) map[string]bool {
	labels := map[string]bool{"metadata.name": true}
	if res.Type.Namespaced || res.Fields == nil {
		labels["metadata.namespace"] = true
	}
	if res.Fields != nil {
		for l := range res.Fields(res.Type.New()) {
			labels[l] = true
		}
	}
	return labels
}

// checkFieldLabels rejects a selector on a label the resource does not
// support, with kube-apiserver's 400 and wording: an unsupported label
// would otherwise select nothing (or everything, with !=), silently.
func checkFieldLabels(res *served, sel fields.Selector) error {
	for _, r := range sel.Requirements() {
		if res.fieldLabels[r.Field] {
			continue
		}
		if res.Fields == nil {
			return apierrors.NewBadRequest(fmt.Sprintf("%q is not a known field selector: only %q, %q", r.Field, "metadata.name", "metadata.namespace"))
		}
		return apierrors.NewBadRequest("field label not supported: " + r.Field)
	}
	return nil
}

// serviceFields are kube-apiserver's selectable fields of a Service.
func serviceFields(obj meta.Object) fields.Set {
	svc := obj.(*core.Service)
	return fields.Set{"spec.clusterIP": svc.Spec.ClusterIP, "spec.type": string(svc.Spec.Type)}
}

// jobFields are kube-apiserver's selectable fields of a Job.
func jobFields(obj meta.Object) fields.Set {
	return fields.Set{"status.successful": strconv.FormatInt(int64(obj.(*batch.Job).Status.Succeeded), 10)}
}

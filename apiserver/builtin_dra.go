package apiserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/orkit/orkit/api/dra"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
)

// The resource.k8s.io/v1 resources with more than the defaults.
var (
	resourceClaimGVR   = dra.GroupVersion().WithResource("resourceclaims")
	resourceSliceGVR   = dra.GroupVersion().WithResource("resourceslices")
	deviceTaintRuleGVR = dra.GroupVersion().WithResource("devicetaintrules")
)

// addDRAExtras adds kube-apiserver's printers of ResourceClaims,
// ResourceSlices and DeviceTaintRules (DeviceClasses and
// ResourceClaimTemplates print name and age, the default), the field
// selectors of ResourceSlices, the DeviceTaintRule strategy, and the
// admin-access namespace check of claims and templates.
func (s *Server) addDRAExtras(m map[meta.GroupVersionResource]func(*Resource)) {
	m[resourceClaimGVR] = func(r *Resource) {
		r.Table = resourceClaimTable
		r.Strategy = &adminAccessStrategy{NewDefaultStrategy(r.Type), s}
	}
	m[dra.GroupVersion().WithResource("resourceclaimtemplates")] = func(r *Resource) {
		r.Strategy = &adminAccessStrategy{NewDefaultStrategy(r.Type), s}
	}
	m[resourceSliceGVR] = func(r *Resource) { r.Table, r.Fields = resourceSliceTable, resourceSliceFields }
	m[deviceTaintRuleGVR] = func(r *Resource) {
		r.Table = deviceTaintRuleTable
		r.Strategy = &deviceTaintRuleStrategy{NewDefaultStrategy(r.Type)}
	}
}

// resourceSliceFields are kube-apiserver's selectable fields of a
// ResourceSlice: spec.nodeName ("" when unset), spec.driver and
// spec.pool.name.
func resourceSliceFields(obj meta.Object) fields.Set {
	s := obj.(*dra.ResourceSlice)
	node := ""
	if s.Spec.NodeName != nil {
		node = *s.Spec.NodeName
	}
	return fields.Set{"spec.nodeName": node, "spec.driver": s.Spec.Driver, "spec.pool.name": s.Spec.Pool.Name}
}

// resourceClaimTable is kube-apiserver's printer of ResourceClaims: the
// name, the state (deleted, pending, allocated, reserved) and age.
var resourceClaimTable = &TableConvertor{
	Columns: []TableColumn{col("State", "string", "A summary of the current state (allocated, pending, reserved, etc.).", 0)},
	Cells: func(obj meta.Object) []any {
		return []any{resourceClaimState(obj.(*dra.ResourceClaim))}
	},
}

// resourceClaimState is the State column: "deleted" when being deleted,
// then "pending" (not allocated, not deleted) or "allocated" with
// ",reserved" when it has consumers.
func resourceClaimState(c *dra.ResourceClaim) string {
	var states []string
	if c.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	switch {
	case c.Status.Allocation != nil:
		states = append(states, "allocated")
		if len(c.Status.ReservedFor) > 0 {
			states = append(states, "reserved")
		}
	case c.DeletionTimestamp == nil:
		states = append(states, "pending")
	}
	return strings.Join(states, ",")
}

// resourceSliceTable is kube-apiserver's printer of ResourceSlices: the
// name, node, driver, pool and age.
var resourceSliceTable = &TableConvertor{
	Columns: []TableColumn{
		col("Node", "string", "NodeName identifies the node which provides the resources in this pool.", 0),
		col("Driver", "string", "Driver identifies the DRA driver providing the capacity information.", 0),
		col("Pool", "string", "Name is used to identify the pool.", 0),
	},
	Cells: func(obj meta.Object) []any {
		s := obj.(*dra.ResourceSlice)
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		return []any{node, s.Spec.Driver, s.Spec.Pool.Name}
	},
}

// deviceTaintRuleTable is kube-apiserver's printer of DeviceTaintRules:
// the name, the taint's key, value, effect and age, and the rule's age.
var deviceTaintRuleTable = &TableConvertor{
	Columns: []TableColumn{
		col("Key", "string", "The taint key to be applied to a device. Must be a label name.", 0),
		col("Value", "string", "The taint value corresponding to the taint key. Must be a label value.", 0),
		col("Effect", "string", "The effect of the taint on claims that do not tolerate the taint and through such claims on the pods using them.", 0),
		col("TimeAdded", "string", "TimeAdded represents the time at which the taint was added or (only in a DeviceTaintRule) the effect was modified.", 0),
	},
	Cells: func(obj meta.Object) []any {
		t := obj.(*dra.DeviceTaintRule).Spec.Taint
		added := ""
		if t.TimeAdded != nil {
			added = HumanAge(*t.TimeAdded, time.Now())
		}
		return []any{t.Key, t.Value, string(t.Effect), added}
	},
}

// deviceTaintRuleStrategy is kube-apiserver's DeviceTaintRule strategy:
// the defaults, and a new taint timeAdded (now, whole seconds) when an
// update changes the effect but keeps the time.
type deviceTaintRuleStrategy struct{ *DefaultStrategy }

// PrepareForUpdate implements Strategy.
func (s *deviceTaintRuleStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
	if subresource == "status" {
		return
	}
	t, ot := &obj.(*dra.DeviceTaintRule).Spec.Taint, old.(*dra.DeviceTaintRule).Spec.Taint
	if t.Effect != ot.Effect && sameTime(t.TimeAdded, ot.TimeAdded) {
		now := meta.Now()
		t.TimeAdded = &now
	}
}

func sameTime(a, b *meta.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}

// AdminAccessNamespaceLabel must be "true" on the namespace of a claim
// or template that asks for admin access to devices.
const AdminAccessNamespaceLabel = "resource.kubernetes.io/admin-access"

// adminAccessStrategy is the ResourceClaim and ResourceClaimTemplate
// strategy: the defaults, and kube-apiserver's check on create that a
// request with adminAccess lives in a namespace labelled
// resource.kubernetes.io/admin-access=true (the spec is immutable, so
// updates need no check).
type adminAccessStrategy struct {
	*DefaultStrategy
	s *Server
}

// Validate implements Strategy.
func (a *adminAccessStrategy) Validate(ctx context.Context, obj meta.Object) field.ErrorList {
	errs := a.DefaultStrategy.Validate(ctx, obj)
	var reqs []dra.DeviceRequest
	switch o := obj.(type) {
	case *dra.ResourceClaim:
		reqs = o.Spec.Devices.Requests
	case *dra.ResourceClaimTemplate:
		reqs = o.Spec.Spec.Devices.Requests
	}
	for i, r := range reqs {
		if r.Exactly == nil || r.Exactly.AdminAccess == nil || !*r.Exactly.AdminAccess {
			continue
		}
		p := field.NewPath("spec", "devices", "requests").Index(i).Child("adminAccess")
		if _, ok := obj.(*dra.ResourceClaimTemplate); ok {
			p = field.NewPath("spec", "spec", "devices", "requests").Index(i).Child("adminAccess")
		}
		ns, err := AdmissionSources{a.s}.LookupNamespace(ctx, obj.GetObjectMeta().Namespace)
		switch {
		case err != nil:
			errs = append(errs, field.InternalError(p, fmt.Errorf("could not retrieve namespace to verify admin access: %w", err)))
		case ns.Labels[AdminAccessNamespaceLabel] != "true":
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("admin access to devices requires the `%s: true` label on the containing namespace", AdminAccessNamespaceLabel)))
		}
		break
	}
	return errs
}

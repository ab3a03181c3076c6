package apiserver

import (
	"context"
	"fmt"
	"reflect"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/flowcontrol"
	"github.com/orkit/orkit/api/meta"
)

// The flowcontrol.apiserver.k8s.io/v1 resources.
var (
	flowSchemaGVR    = flowcontrol.GroupVersion().WithResource("flowschemas")
	priorityLevelGVR = flowcontrol.GroupVersion().WithResource("prioritylevelconfigurations")
)

// flowSchemaTable and priorityLevelTable are kube-apiserver's printers of
// FlowSchemas (level, precedence, distinguisher, the Dangling condition
// as MissingPL, "?" before any controller set it) and
// PriorityLevelConfigurations (type, shares, queuing).
var (
	flowSchemaTable = &TableConvertor{
		Columns: []TableColumn{
			col("PriorityLevel", "string", "`name` is the name of the priority level configuration being referenced Required.", 0),
			col("MatchingPrecedence", "string", "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.", 0),
			col("DistinguisherMethod", "string", "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.", 0),
			col("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration", 0),
		},
		AgeBefore: "MissingPL",
		Cells: func(obj meta.Object) []any {
			fs := obj.(*flowcontrol.FlowSchema)
			dm := "<none>"
			if fs.Spec.DistinguisherMethod != nil {
				dm = string(fs.Spec.DistinguisherMethod.Type)
			}
			missing := "?"
			for _, c := range fs.Status.Conditions {
				if c.Type == flowcontrol.FlowSchemaConditionDangling {
					missing = string(c.Status)
					break
				}
			}
			return []any{fs.Spec.PriorityLevelConfiguration.Name, int64(fs.Spec.MatchingPrecedence), dm, missing}
		},
	}
	priorityLevelTable = &TableConvertor{
		Columns: []TableColumn{
			col("Type", "string", "`type` indicates whether this priority level is subject to limitation on request execution.", 0),
			col("NominalConcurrencyShares", "string", "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.", 0),
			col("Queues", "string", "`queues` is the number of queues for this priority level.", 0),
			col("HandSize", "string", "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.", 0),
			col("QueueLengthLimit", "string", "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time", 0),
		},
		AgeBefore: "",
		Cells: func(obj meta.Object) []any {
			pl := obj.(*flowcontrol.PriorityLevelConfiguration)
			var ncs, queues, hand, limit any = "<none>", "<none>", "<none>", "<none>"
			if l := pl.Spec.Limited; l != nil {
				if l.NominalConcurrencyShares != nil {
					ncs = int64(*l.NominalConcurrencyShares)
				}
				if q := l.LimitResponse.Queuing; q != nil {
					queues, hand, limit = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
				}
			}
			return []any{string(pl.Spec.Type), ncs, queues, hand, limit}
		},
	}
)

// addFlowControlExtras adds the tables of the flowcontrol resources to m.
func addFlowControlExtras(m map[meta.GroupVersionResource]func(*Resource)) {
	m[flowSchemaGVR] = func(r *Resource) { r.Table = flowSchemaTable }
	m[priorityLevelGVR] = func(r *Resource) { r.Table = priorityLevelTable }
}

// bootstrapFlowControl creates kube-apiserver's APF configuration when
// the flowcontrol resources are served: the mandatory priority levels and
// schemas are created, or put back to their fixed spec; the suggested
// ones are created when missing, and put back to their built-in spec when
// they carry apf.kubernetes.io/autoupdate-spec "true" (an operator who
// changes one sets it to "false" to keep the change), as kube-apiserver's
// configuration ensurer does at start.
func (s *Server) bootstrapFlowControl(ctx context.Context) error {
	if _, ok := s.lookup(flowSchemaGVR); !ok {
		return nil
	}
	if _, ok := s.lookup(priorityLevelGVR); !ok {
		return nil
	}
	b := flowcontrol.BootstrapConfiguration()
	for _, pl := range append(b.MandatoryPriorityLevels, b.SuggestedPriorityLevels...) {
		if err := s.ensureFlowControlObject(ctx, priorityLevelGVR, pl, func(o meta.Object) any { return &o.(*flowcontrol.PriorityLevelConfiguration).Spec }); err != nil {
			return err
		}
	}
	for _, fs := range append(b.MandatoryFlowSchemas, b.SuggestedFlowSchemas...) {
		if err := s.ensureFlowControlObject(ctx, flowSchemaGVR, fs, func(o meta.Object) any { return &o.(*flowcontrol.FlowSchema).Spec }); err != nil {
			return err
		}
	}
	return nil
}

// ensureFlowControlObject creates want, or brings the spec of the stored
// object (reached through spec, a pointer to its Spec field) back to
// want's when the stored object allows auto-update (a mandatory object
// always does, as validation keeps its spec fixed anyway).
func (s *Server) ensureFlowControlObject(ctx context.Context, gvr meta.GroupVersionResource, want meta.Object, spec func(meta.Object) any) error {
	res, ok := s.lookup(gvr)
	if !ok {
		return fmt.Errorf("bootstrap: %v is not registered", gvr)
	}
	if res.Type.Default != nil {
		res.Type.Default(want)
	}
	name := want.GetObjectMeta().Name
	_, mandatory := mandatoryNames[name]
	_, err := res.storage.GuaranteedUpdate(ctx, "", name, true, func(cur meta.Object) (meta.Object, error) {
		if !mandatory && cur.GetObjectMeta().Annotations[flowcontrol.AutoUpdateAnnotationKey] != "true" {
			return nil, NoChange()
		}
		if reflect.DeepEqual(spec(cur), spec(want)) {
			return nil, NoChange()
		}
		next := meta.DeepCopy(cur)
		reflect.ValueOf(spec(next)).Elem().Set(reflect.ValueOf(spec(want)).Elem())
		next.GetObjectMeta().Generation++
		return next, nil
	})
	if apierrors.IsNotFound(err) {
		return s.createIfMissing(ctx, gvr, want)
	}
	if err != nil {
		return fmt.Errorf("bootstrap %s %q: %w", gvr.Resource, name, err)
	}
	return nil
}

// mandatoryNames are the names of the mandatory APF objects.
var mandatoryNames = map[string]struct{}{flowcontrol.NameExempt: {}, flowcontrol.NameCatchAll: {}}

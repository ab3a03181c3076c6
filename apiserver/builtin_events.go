package apiserver

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/events"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
)

// eventsV1Type is the events.k8s.io/v1 view of core/v1 Events.
var eventsV1Type = events.Type()

// eventsView converts between the stored core/v1 Events and
// events.k8s.io/v1 (events.ToCore, events.FromCore).
func eventsView(stored *Resource) *View {
	return &View{
		Stored: stored.Type,
		FromStored: func(in meta.Object) (meta.Object, error) {
			e, ok := in.(*core.Event)
			if !ok {
				return nil, fmt.Errorf("%w: %T is not a core/v1 Event", ErrConversion, in)
			}
			return events.FromCore(e), nil
		},
		ToStored: func(in meta.Object) (meta.Object, error) {
			e, ok := in.(*events.Event)
			if !ok {
				return nil, fmt.Errorf("%w: %T is not an events.k8s.io/v1 Event", ErrConversion, in)
			}
			return events.ToCore(e), nil
		},
	}
}

// registerEventsV1 serves events.k8s.io/v1 events as a view of the core/v1
// events, when those are served: one storage, two group versions, as
// kube-apiserver serves them. The view validates with events.k8s.io's
// stricter rules (events.ValidateEvent), selects with its field names
// and shows kube's event table.
func (s *Server) registerEventsV1() error {
	stored, ok := s.lookup(coreGVR("events"))
	if !ok {
		return nil
	}
	if _, ok := s.lookup(eventsV1Type.GroupVersionResource()); ok {
		return nil
	}
	return s.Register(Resource{
		Type:     eventsV1Type,
		View:     eventsView(&stored.Resource),
		Strategy: NewDefaultStrategy(eventsV1Type),
		Fields:   eventsV1Fields,
		Table:    viewTable(eventTable, func(o meta.Object) meta.Object { return events.ToCore(o.(*events.Event)) }),
	})
}

// eventsV1Fields are the fields kube-apiserver lets field selectors use on
// events.k8s.io/v1 events: core's under this group's names.
func eventsV1Fields(obj meta.Object) fields.Set {
	e := obj.(*events.Event)
	source := e.DeprecatedSource.Component
	if source == "" {
		source = e.ReportingController
	}
	r := e.Regarding
	return fields.Set{
		"regarding.kind": r.Kind, "regarding.namespace": r.Namespace, "regarding.name": r.Name,
		"regarding.uid": string(r.UID), "regarding.apiVersion": r.APIVersion,
		"regarding.resourceVersion": r.ResourceVersion, "regarding.fieldPath": r.FieldPath,
		"reason": e.Reason, "reportingController": e.ReportingController, "source": source, "type": e.Type,
	}
}

// viewTable shows a view's objects with the stored kind's table, as
// kube-apiserver prints the internal object whatever the version.
func viewTable(t *TableConvertor, toStored func(meta.Object) meta.Object) *TableConvertor {
	out := *t
	out.Cells = func(obj meta.Object) []any { return t.Cells(toStored(obj)) }
	return &out
}

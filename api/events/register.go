package events

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Type returns the scheme entry of events.k8s.io/v1 events (namespaced,
// short name "ev", validation with ValidateEvent and
// ValidateEventUpdate). The API server serves it as a view of the stored
// core/v1 Events; it is not for a scheme of stored kinds. Each call
// returns a fresh value the caller owns.
func Type() *scheme.Type {
	return &scheme.Type{
		Kind:       GroupVersion().WithKind("Event"),
		Resource:   "events",
		Namespaced: true,
		ShortNames: []string{"ev"},
		New:        func() meta.Object { return &Event{} },
		NewList:    func() meta.ListObject { return &EventList{} },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateEvent(o.(*Event)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateEventUpdate(o.(*Event), old.(*Event))
		},
	}
}

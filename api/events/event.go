package events

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// The group and version of Event here.
const (
	GroupName = "events.k8s.io"
	Version   = "v1"
)

// GroupVersion returns events.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// Event (events.k8s.io/v1) reports something that happened to an object:
// who reported it (reportingController, reportingInstance), what was done
// (action) and why (reason), about which object (regarding). It is the
// same object as a core/v1 Event, under other field names.
type Event struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// EventTime is when the event was first observed. Required.
	EventTime meta.MicroTime `json:"eventTime"`
	// Series is set when the event repeats: how often and when last.
	Series *EventSeries `json:"series,omitempty"`
	// ReportingController is the controller that emitted the event
	// (`kubernetes.io/kubelet`). Required for new events.
	ReportingController string `json:"reportingController,omitempty"`
	// ReportingInstance is the instance of that controller
	// (`kubelet-xyzf`). Required for new events, at most 128 characters.
	ReportingInstance string `json:"reportingInstance,omitempty"`
	// Action is what was done or failed about the regarding object, at
	// most 128 characters. Required for new events.
	Action string `json:"action,omitempty"`
	// Reason is why the action was taken, at most 128 characters.
	// Required for new events.
	Reason string `json:"reason,omitempty"`
	// Regarding is the object the event is about.
	Regarding core.ObjectReference `json:"regarding,omitempty"`
	// Related is a second object, for complex actions.
	Related *core.ObjectReference `json:"related,omitempty"`
	// Note is a human-readable description, at most 1 KiB.
	Note string `json:"note,omitempty"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty"`
	// DeprecatedSource is core/v1's source, kept for round trips.
	DeprecatedSource core.EventSource `json:"deprecatedSource,omitempty"`
	// DeprecatedFirstTimestamp is core/v1's firstTimestamp.
	DeprecatedFirstTimestamp meta.Time `json:"deprecatedFirstTimestamp,omitzero"`
	// DeprecatedLastTimestamp is core/v1's lastTimestamp.
	DeprecatedLastTimestamp meta.Time `json:"deprecatedLastTimestamp,omitzero"`
	// DeprecatedCount is core/v1's count.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty"`
}

// EventList is a list of events.k8s.io/v1 Events.
type EventList = meta.List[Event]

// EventSeries counts the repeats of an event.
type EventSeries struct {
	// Count is how many times the event was observed; at least 2.
	Count int32 `json:"count"`
	// LastObservedTime is when it was last observed. Required.
	LastObservedTime meta.MicroTime `json:"lastObservedTime"`
}

// ToCore returns the core/v1 form of e, as Kubernetes converts it. e is
// not changed; the result shares nothing with it.
func ToCore(e *Event) *core.Event {
	e = meta.DeepCopy(e)
	out := &core.Event{
		TypeMeta:            meta.TypeMeta{Kind: "Event", APIVersion: core.GroupVersion().String()},
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if e.Series != nil {
		out.Series = &core.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}

// FromCore returns the events.k8s.io/v1 form of a core/v1 Event, as
// Kubernetes converts it. e is not changed; the result shares nothing
// with it.
func FromCore(e *core.Event) *Event {
	e = meta.DeepCopy(e)
	out := &Event{
		TypeMeta:                 meta.TypeMeta{Kind: "Event", APIVersion: GroupVersion().String()},
		ObjectMeta:               e.ObjectMeta,
		EventTime:                e.EventTime,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Related:                  e.Related,
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
	if e.Series != nil {
		out.Series = &EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}

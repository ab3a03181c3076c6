package core

import "github.com/orkit/orkit/api/meta"

// Event reports something that happened to an object (core/v1 Event).
type Event struct {
	meta.TypeMeta       `json:",inline"`
	meta.ObjectMeta     `json:"metadata"`
	InvolvedObject      ObjectReference  `json:"involvedObject"`
	Reason              string           `json:"reason,omitempty"`
	Message             string           `json:"message,omitempty"`
	Source              EventSource      `json:"source,omitempty"`
	FirstTimestamp      meta.Time        `json:"firstTimestamp,omitzero"`
	LastTimestamp       meta.Time        `json:"lastTimestamp,omitzero"`
	Count               int32            `json:"count,omitempty"`
	Type                string           `json:"type,omitempty"`
	EventTime           meta.MicroTime   `json:"eventTime,omitzero"`
	Series              *EventSeries     `json:"series,omitempty"`
	Action              string           `json:"action,omitempty"`
	Related             *ObjectReference `json:"related,omitempty"`
	ReportingController string           `json:"reportingComponent"`
	ReportingInstance   string           `json:"reportingInstance"`
}

// EventList is a list of events.
type EventList = meta.List[Event]

// The event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// EventSource names the component that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EventSeries counts repeats of an event.
type EventSeries struct {
	Count            int32          `json:"count,omitempty"`
	LastObservedTime meta.MicroTime `json:"lastObservedTime,omitzero"`
}

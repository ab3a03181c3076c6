// Package events holds events.k8s.io/v1: the Event kind as that group
// serves it, a second view of the core/v1 Events the API server stores.
// ToCore and FromCore convert with Kubernetes' field mapping
// (regarding ↔ involvedObject, note ↔ message, reportingController ↔
// reportingComponent, deprecated* ↔ source, firstTimestamp,
// lastTimestamp, count); ValidateEvent and ValidateEventUpdate check a
// request made through this group as Kubernetes does (stricter than
// core/v1: eventTime, reportingController, reportingInstance and action
// required, type Normal or Warning, the deprecated fields unset on
// create, most fields immutable). Type returns the scheme entry the API
// server serves; it is not in api.NewScheme, which holds stored kinds.
//
// Every type marshals to JSON exactly as Kubernetes' events.k8s.io/v1.
// Values are plain data with no internal synchronisation.
package events

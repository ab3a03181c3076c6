package events

import (
	"fmt"
	"reflect"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// reportingField is how errors name reportingController in this group.
const reportingField = "reportingController"

// ValidateEvent checks an Event created through events.k8s.io/v1 as
// Kubernetes does: core/v1's rules (namespaces, a reporting controller
// that is a qualified name, reporting instance, action and reason with
// their lengths, a note of at most 1 KiB), then this group's: eventTime
// required, type Normal or Warning, a series of at least 2 with its last
// observed time, and the deprecated fields unset. Errors use Kubernetes'
// paths, which for the shared rules are core/v1's field names
// (involvedObject.namespace, message).
func ValidateEvent(e *Event) field.ErrorList {
	c := ToCore(e)
	errs := core.ValidateEventReportedAs(c, reportingField)
	errs = append(errs, validateSeries(e)...)
	if e.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != core.EventTypeNormal && e.Type != core.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"deprecatedFirstTimestamp", !e.DeprecatedFirstTimestamp.IsZero()},
		{"deprecatedLastTimestamp", !e.DeprecatedLastTimestamp.IsZero()},
		{"deprecatedCount", e.DeprecatedCount != 0},
		{"deprecatedSource", e.DeprecatedSource.Component != "" || e.DeprecatedSource.Host != ""},
	} {
		if f.set {
			errs = append(errs, field.Invalid(field.NewPath(f.name), "", "needs to be unset"))
		}
	}
	return errs
}

// ValidateEventUpdate checks e replacing old through events.k8s.io/v1 as
// Kubernetes does: core/v1's rules, the metadata update rules, a changed
// series, and every field but the series and metadata immutable (named
// by their core/v1 paths, as Kubernetes names them).
func ValidateEventUpdate(e, old *Event) field.ErrorList {
	n, o := ToCore(e), ToCore(old)
	errs := core.ValidateEventReportedAs(n, reportingField)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&n.ObjectMeta, &o.ObjectMeta, field.NewPath("metadata"))...)
	if !reflect.DeepEqual(e.Series, old.Series) {
		errs = append(errs, validateSeries(e)...)
	}
	for _, f := range []struct {
		name     string
		new, old any
	}{
		{"involvedObject", n.InvolvedObject, o.InvolvedObject},
		{"reason", n.Reason, o.Reason},
		{"message", n.Message, o.Message},
		{"source", n.Source, o.Source},
		{"firstTimestamp", n.FirstTimestamp, o.FirstTimestamp},
		{"lastTimestamp", n.LastTimestamp, o.LastTimestamp},
		{"count", n.Count, o.Count},
		{"type", n.Type, o.Type},
		{"eventTime", n.EventTime, o.EventTime},
		{"action", n.Action, o.Action},
		{"related", n.Related, o.Related},
		{"reportingController", n.ReportingController, o.ReportingController},
		{"reportingInstance", n.ReportingInstance, o.ReportingInstance},
	} {
		errs = append(errs, validation.ValidateImmutableField(f.new, f.old, field.NewPath(f.name))...)
	}
	return errs
}

func validateSeries(e *Event) field.ErrorList {
	if e.Series == nil {
		return nil
	}
	var errs field.ErrorList
	if e.Series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series", "count"), "", "should be at least 2"))
	}
	if e.Series.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series", "lastObservedTime"), ""))
	}
	return errs
}

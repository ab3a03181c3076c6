package events

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func validEvent() *Event {
	now := meta.MicroTime{Time: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)}
	return &Event{
		ObjectMeta: meta.ObjectMeta{Name: "e", Namespace: "default"}, EventTime: now,
		ReportingController: "example.com/ctl", ReportingInstance: "ctl-0", Action: "Scale", Reason: "Scaled",
		Type: core.EventTypeNormal, Note: "n", Regarding: core.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"},
	}
}

// TestConversionFieldMapping: every field lands where Kubernetes puts it.
func TestConversionFieldMapping(t *testing.T) {
	e := validEvent()
	e.Related = &core.ObjectReference{Kind: "Node", Name: "n1"}
	e.Series = &EventSeries{Count: 3, LastObservedTime: e.EventTime}
	e.DeprecatedSource = core.EventSource{Component: "c", Host: "h"}
	e.DeprecatedFirstTimestamp = meta.Time{Time: e.EventTime.Time}
	e.DeprecatedLastTimestamp = meta.Time{Time: e.EventTime.Time.Add(time.Minute)}
	e.DeprecatedCount = 7
	c := ToCore(e)
	assert.Equal(t, "v1", c.APIVersion)
	assert.Equal(t, e.Regarding, c.InvolvedObject)
	assert.Equal(t, e.Note, c.Message)
	assert.Equal(t, e.ReportingController, c.ReportingController)
	assert.Equal(t, e.ReportingInstance, c.ReportingInstance)
	assert.Equal(t, e.DeprecatedSource, c.Source)
	assert.True(t, e.DeprecatedFirstTimestamp.Equal(c.FirstTimestamp.Time))
	assert.True(t, e.DeprecatedLastTimestamp.Equal(c.LastTimestamp.Time))
	assert.True(t, e.EventTime.Equal(c.EventTime.Time))
	assert.Equal(t, int32(7), c.Count)
	assert.Equal(t, int32(3), c.Series.Count)
	assert.Equal(t, "Node", c.Related.Kind)
	back := FromCore(c)
	assert.Equal(t, "events.k8s.io/v1", back.APIVersion)
	back.TypeMeta = e.TypeMeta
	want, _ := json.Marshal(e)
	got, _ := json.Marshal(back)
	assert.JSONEq(t, string(want), string(got))
	c.Related.Kind = "changed"
	assert.Equal(t, "Node", e.Related.Kind, "the conversion shares nothing")
}

// TestValidateEvent: events.k8s.io/v1's create and update rules with
// Kubernetes' paths and messages.
func TestValidateEvent(t *testing.T) {
	cases := []struct {
		name string
		mut  func(*Event)
		want []string
	}{
		{"valid", func(*Event) {}, nil},
		{"no eventTime", func(e *Event) { e.EventTime = meta.MicroTime{} }, []string{"eventTime: Required value"}},
		{"no controller", func(e *Event) { e.ReportingController = "" }, []string{"reportingController: Required value",
			// and, as in Kubernetes, the qualified-name check of ""
			`reportingController: Invalid value: "": name part must be non-empty`,
			`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
		{"no action", func(e *Event) { e.Action = "" }, []string{"action: Required value"}},
		{"long action", func(e *Event) { e.Action = strings.Repeat("a", 129) }, []string{`action: Invalid value: "": can have at most 128 characters`}},
		{"long note", func(e *Event) { e.Note = strings.Repeat("a", 1025) }, []string{`message: Invalid value: "": can have at most 1024 characters`}},
		{"note of 1 KiB", func(e *Event) { e.Note = strings.Repeat("a", 1024) }, nil},
		{"bad type", func(e *Event) { e.Type = "Info" }, []string{`type: Invalid value: "": has invalid value: Info`}},
		{"deprecated count", func(e *Event) { e.DeprecatedCount = 1 }, []string{`deprecatedCount: Invalid value: "": needs to be unset`}},
		{"series of 1", func(e *Event) { e.Series = &EventSeries{Count: 1, LastObservedTime: e.EventTime} },
			[]string{`series.count: Invalid value: "": should be at least 2`}},
		{"other namespace", func(e *Event) { e.Regarding.Namespace = ""; e.Namespace = "team" },
			[]string{`involvedObject.namespace: Invalid value: "": does not match event.namespace`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := validEvent()
			tc.mut(e)
			errs := ValidateEvent(e)
			var got []string
			for _, err := range errs {
				got = append(got, err.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestValidateEventUpdate(t *testing.T) {
	old := validEvent()
	e := validEvent()
	e.Series = &EventSeries{Count: 2, LastObservedTime: e.EventTime}
	e.Labels = map[string]string{"a": "b"}
	assert.Empty(t, ValidateEventUpdate(e, old), "series and labels may change")
	e.Note, e.Action = "other", "Other"
	var got []string
	for _, err := range ValidateEventUpdate(e, old) {
		got = append(got, err.Error())
	}
	assert.Equal(t, []string{`message: Invalid value: "other": field is immutable`, `action: Invalid value: "Other": field is immutable`}, got)
}

// FuzzEventConversion: any events.k8s.io/v1 body that decodes survives a
// trip through core/v1 unchanged, and validation never panics.
func FuzzEventConversion(f *testing.F) {
	b, _ := json.Marshal(validEvent())
	f.Add(b)
	f.Add([]byte(`{"series":{"count":2},"related":{},"deprecatedSource":{"host":"h"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Event
		if json.Unmarshal(b, &e) != nil {
			return
		}
		back := FromCore(ToCore(&e))
		back.TypeMeta = e.TypeMeta
		want, err := json.Marshal(&e)
		require.NoError(t, err)
		got, err := json.Marshal(back)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got))
		_ = ValidateEvent(&e)
		_ = ValidateEventUpdate(&e, back)
	})
}

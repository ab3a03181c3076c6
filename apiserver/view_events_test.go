package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const eventsV1Path = "/apis/events.k8s.io/v1/namespaces/default/events"

// newEventV1 is a valid events.k8s.io/v1 Event body.
func newEventV1(name string, mut func(map[string]any)) []byte {
	e := map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"metadata":            map[string]any{"name": name},
		"eventTime":           "2026-11-27T10:00:00.000000Z",
		"reportingController": "example.com/ctl", "reportingInstance": "ctl-1",
		"action": "Scaling", "reason": "Scaled", "type": "Normal", "note": "scaled up",
		"regarding": map[string]any{"kind": "Deployment", "namespace": "default", "name": "web", "apiVersion": "apps/v1"},
		"related":   map[string]any{"kind": "ReplicaSet", "namespace": "default", "name": "web-1"},
		"series":    map[string]any{"count": 2, "lastObservedTime": "2026-11-27T10:01:00.000000Z"},
	}
	if mut != nil {
		mut(e)
	}
	b, _ := json.Marshal(e)
	return b
}

// TestEventsV1ViewOfCoreEvents: an Event made through one group version is
// read, listed, selected, watched, updated and patched through the other
// with kube's field mapping.
func TestEventsV1ViewOfCoreEvents(t *testing.T) {
	ts := newTestServer(t, nil)
	next, code, stop := ts.watchStream(t, eventsV1Path+"?watch=1&fieldSelector=reason%3DScaled")
	require.Equal(t, http.StatusOK, code)
	defer stop()

	code, out := ts.do(t, "POST", eventsV1Path, "application/json", newEventV1("e1", nil))
	require.Equal(t, http.StatusCreated, code, string(out))
	assert.Contains(t, string(out), `"apiVersion":"events.k8s.io/v1"`)

	code, out = ts.do(t, "GET", "/api/v1/namespaces/default/events/e1", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	var ce map[string]any
	require.NoError(t, json.Unmarshal(out, &ce))
	assert.Equal(t, "v1", ce["apiVersion"])
	assert.Equal(t, "scaled up", ce["message"])
	assert.Equal(t, "example.com/ctl", ce["reportingComponent"])
	assert.Equal(t, "web", ce["involvedObject"].(map[string]any)["name"])
	assert.Equal(t, "web-1", ce["related"].(map[string]any)["name"])
	assert.EqualValues(t, 2, ce["series"].(map[string]any)["count"])
	assert.Equal(t, "Scaling", ce["action"])

	ev, err := next()
	require.NoError(t, err)
	assert.Equal(t, "ADDED", ev.Type)
	assert.Contains(t, string(ev.Object), `"note":"scaled up"`)

	// A core event (old style) read through events.k8s.io/v1.
	core := `{"apiVersion":"v1","kind":"Event","metadata":{"name":"c1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p"},` +
		`"reason":"Scaled","message":"hello","source":{"component":"kubelet","host":"n1"},"count":3,"type":"Warning",` +
		`"firstTimestamp":"2026-11-27T09:00:00Z","lastTimestamp":"2026-11-27T09:05:00Z"}`
	code, out = ts.do(t, "POST", "/api/v1/namespaces/default/events", "application/json", []byte(core))
	require.Equal(t, http.StatusCreated, code, string(out))
	code, out = ts.do(t, "GET", eventsV1Path+"/c1", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	for _, want := range []string{`"note":"hello"`, `"deprecatedSource":{"component":"kubelet","host":"n1"}`, `"deprecatedCount":3`,
		`"deprecatedFirstTimestamp":"2026-11-27T09:00:00Z"`, `"regarding":{"kind":"Pod"`, `"apiVersion":"events.k8s.io/v1"`} {
		assert.Contains(t, string(out), want)
	}
	ev, err = next()
	require.NoError(t, err)
	assert.Equal(t, "ADDED", ev.Type)
	assert.Contains(t, string(ev.Object), `"deprecatedCount":3`)

	// Lists, from the watch cache and from the store (a page), with field selectors in each group's names.
	for _, q := range []string{"?fieldSelector=regarding.name%3Dweb", "?fieldSelector=regarding.name%3Dweb&limit=5", "?fieldSelector=reportingController%3Dexample.com%2Fctl"} {
		code, out = ts.do(t, "GET", eventsV1Path+q, "", nil)
		require.Equal(t, http.StatusOK, code, string(out))
		var l struct {
			Kind, APIVersion string
			Items            []map[string]any
		}
		require.NoError(t, json.Unmarshal(out, &l))
		assert.Equal(t, "EventList", l.Kind)
		require.Len(t, l.Items, 1, q)
		assert.Equal(t, "scaled up", l.Items[0]["note"], q)
	}
	code, out = ts.do(t, "GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	assert.Contains(t, string(out), `"message":"scaled up"`)
	code, out = ts.do(t, "GET", eventsV1Path+"?fieldSelector=involvedObject.name%3Dweb", "", nil)
	assert.Equal(t, http.StatusBadRequest, code, "core's field names are not this group's: %s", out)

	// A patch through events.k8s.io changes the series; core sees it.
	code, out = ts.do(t, "PATCH", eventsV1Path+"/e1", "application/merge-patch+json",
		[]byte(`{"series":{"count":5,"lastObservedTime":"2026-11-27T10:05:00.000000Z"}}`))
	require.Equal(t, http.StatusOK, code, string(out))
	code, out = ts.do(t, "GET", "/api/v1/namespaces/default/events/e1", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"series":{"count":5`)
	ev, err = next()
	require.NoError(t, err)
	assert.Equal(t, "MODIFIED", ev.Type)
	assert.Contains(t, string(ev.Object), `"count":5`)

	// Immutable through events.k8s.io/v1 (not through core/v1).
	code, out = ts.do(t, "PATCH", eventsV1Path+"/e1", "application/merge-patch+json", []byte(`{"note":"changed"}`))
	assert.Equal(t, http.StatusUnprocessableEntity, code)
	assert.Contains(t, string(out), "message: Invalid value: \\\"changed\\\": field is immutable")

	// A table for kubectl.
	req, _ := http.NewRequest("GET", ts.url+eventsV1Path, nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	var tbl struct {
		ColumnDefinitions []struct{ Name string }
		Rows              []struct{ Cells []any }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tbl))
	resp.Body.Close()
	require.Len(t, tbl.Rows, 2)
	assert.Equal(t, "Last Seen", tbl.ColumnDefinitions[0].Name)

	// Deleting through one group version removes it from the other.
	code, _ = ts.do(t, "DELETE", eventsV1Path+"/c1", "", nil)
	require.Equal(t, http.StatusOK, code)
	code, _ = ts.do(t, "GET", "/api/v1/namespaces/default/events/c1", "", nil)
	assert.Equal(t, http.StatusNotFound, code)
	ev, err = next()
	require.NoError(t, err)
	assert.Equal(t, "DELETED", ev.Type)
}

// TestEventsV1Validation: events.k8s.io/v1's rules, stricter than core's,
// with kube's messages; bad input stores nothing.
func TestEventsV1Validation(t *testing.T) {
	ts := newTestServer(t, nil)
	cases := []struct {
		name string
		mut  func(map[string]any)
		want []string
	}{
		{"no reportingController", func(e map[string]any) { delete(e, "reportingController") }, []string{"reportingController: Required value"}},
		{"no action", func(e map[string]any) { delete(e, "action") }, []string{"action: Required value"}},
		{"no reportingInstance", func(e map[string]any) { delete(e, "reportingInstance") }, []string{"reportingInstance: Required value"}},
		{"no eventTime", func(e map[string]any) { delete(e, "eventTime") }, []string{"eventTime: Required value"}},
		{"note over 1 KiB", func(e map[string]any) { e["note"] = strings.Repeat("x", 1025) }, []string{"message: Invalid value: \\\"\\\": can have at most 1024 characters"}},
		{"bad type", func(e map[string]any) { e["type"] = "Fatal" }, []string{"type: Invalid value: \\\"\\\": has invalid value: Fatal"}},
		{"deprecated fields", func(e map[string]any) {
			e["deprecatedCount"] = 2
			e["deprecatedSource"] = map[string]any{"component": "x"}
		}, []string{"deprecatedCount: Invalid value: \\\"\\\": needs to be unset", "deprecatedSource: Invalid value"}},
		{"short series", func(e map[string]any) { e["series"] = map[string]any{"count": 1} },
			[]string{"series.count: Invalid value: \\\"\\\": should be at least 2", "series.lastObservedTime: Required value"}},
		{"bad controller name", func(e map[string]any) { e["reportingController"] = "not a name" }, []string{"reportingController: Invalid value"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("bad-%d", i)
			code, out := ts.do(t, "POST", eventsV1Path, "application/json", newEventV1(name, tc.mut))
			require.Equal(t, http.StatusUnprocessableEntity, code, string(out))
			assert.Contains(t, string(out), `Event.events.k8s.io \"`+name+`\" is invalid`)
			for _, w := range tc.want {
				assert.Contains(t, string(out), w)
			}
			code, _ = ts.do(t, "GET", "/api/v1/namespaces/default/events/"+name, "", nil)
			assert.Equal(t, http.StatusNotFound, code, "nothing stored")
		})
	}
	// The same old-style event is fine through core/v1.
	code, out := ts.do(t, "POST", "/api/v1/namespaces/default/events", "application/json",
		[]byte(`{"metadata":{"name":"old"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p"},"reason":"X"}`))
	require.Equal(t, http.StatusCreated, code, string(out))

	// Malformed, mistyped and oversized bodies.
	for _, body := range []string{`{"metadata":`, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"k"}}`, `{"metadata":{"name":"t"},"eventTime":5}`} {
		code, out = ts.do(t, "POST", eventsV1Path, "application/json", []byte(body))
		assert.Equal(t, http.StatusBadRequest, code, "%s: %s", body, out)
	}
	code, _ = ts.do(t, "POST", eventsV1Path, "application/json", newEventV1("big", func(e map[string]any) { e["note"] = strings.Repeat("x", 4<<20) }))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)

	// Unauthorized: an ordinary user may not read or write either view.
	c := ts.clientAs(t, "mallory")
	for _, p := range []string{eventsV1Path, "/api/v1/namespaces/default/events"} {
		resp, err := c.Get(ts.url + p)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, p)
	}
	_ = time.Second
}

// TestEventsV1ViewPatchesApplyAndDiscovery: strategic merge patches,
// server-side apply and a watch-list (client-go's streamed list) through
// the view; discovery lists the group, and autoscaling prefers v2.
func TestEventsV1ViewPatchesApplyAndDiscovery(t *testing.T) {
	ts := newTestServer(t, nil)
	code, out := ts.do(t, "POST", eventsV1Path, "application/json", newEventV1("e1", func(e map[string]any) { delete(e, "series") }))
	require.Equal(t, http.StatusCreated, code, string(out))

	code, out = ts.do(t, "PATCH", eventsV1Path+"/e1", "application/strategic-merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	require.Equal(t, http.StatusOK, code, string(out))
	code, out = ts.do(t, "GET", "/api/v1/namespaces/default/events/e1", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"labels":{"a":"b"}`)

	apply := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e2"},"eventTime":"2026-11-27T10:00:00.000000Z",` +
		`"reportingController":"example.com/ctl","reportingInstance":"i","action":"A","reason":"R","type":"Normal","note":"applied",` +
		`"regarding":{"kind":"Pod","namespace":"default","name":"p"}}`
	code, out = ts.do(t, "PATCH", eventsV1Path+"/e2?fieldManager=tester", "application/apply-patch+yaml", []byte(apply))
	require.Equal(t, http.StatusCreated, code, string(out))
	code, out = ts.do(t, "GET", "/api/v1/namespaces/default/events/e2", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"message":"applied"`)
	assert.Contains(t, string(out), `"manager":"tester"`)

	// A watch-list: every event as ADDED, then the bookmark ending them.
	next, code, stop := ts.watchStream(t, eventsV1Path+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	require.Equal(t, http.StatusOK, code)
	defer stop()
	names := map[string]bool{}
	for range 2 {
		ev, err := next()
		require.NoError(t, err)
		require.Equal(t, "ADDED", ev.Type)
		n, _ := objName(t, ev.Object)
		names[n] = true
		assert.Contains(t, string(ev.Object), `"apiVersion":"events.k8s.io/v1"`)
	}
	assert.Equal(t, map[string]bool{"e1": true, "e2": true}, names)
	ev, err := next()
	require.NoError(t, err)
	assert.Equal(t, "BOOKMARK", ev.Type)
	assert.Contains(t, string(ev.Object), InitialEventsAnnotation)

	code, out = ts.do(t, "GET", "/apis/events.k8s.io/v1", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"name":"events"`)
	assert.Contains(t, string(out), `"kind":"Event"`)
	code, out = ts.do(t, "GET", "/apis/autoscaling", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"preferredVersion":{"groupVersion":"autoscaling/v2"`)
	code, out = ts.do(t, "GET", "/apis/autoscaling/v1", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"name":"horizontalpodautoscalers/status"`)
	req, _ := http.NewRequest("GET", ts.url+"/apis", nil)
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	var agg struct {
		Items []struct {
			Metadata struct{ Name string }
			Versions []struct {
				Version   string
				Resources []struct{ Resource string }
			}
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&agg))
	resp.Body.Close()
	var found bool
	for _, g := range agg.Items {
		if g.Metadata.Name == "events.k8s.io" {
			found = len(g.Versions) == 1 && g.Versions[0].Version == "v1" && len(g.Versions[0].Resources) == 1
		}
	}
	assert.True(t, found, "aggregated discovery lists events.k8s.io/v1 events")
}

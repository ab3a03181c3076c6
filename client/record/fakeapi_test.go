package record_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// fakeAPI serves the Events resource from memory and records the writes
// it receives, so tests can check what a Writer sent.
type fakeAPI struct {
	mu     sync.Mutex
	events map[string]*core.Event // namespace/name
	ops    []string               // "create <name> <count>", "patch <name> <count>"
	fail   int                    // answer the next fail writes with 500
	gate   chan struct{}          // when set, each write waits for a receive
}

func newFakeAPI(t testing.TB) (*fakeAPI, *client.Client) {
	t.Helper()
	f := &fakeAPI{events: map[string]*core.Event{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, QPS: -1}, client.WithRetry(0, 0, 0))
	require.NoError(t, err)
	return f, c
}

func status(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: meta.StatusFailure, Reason: meta.StatusReason(reason), Code: int32(code), Message: reason})
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-r.Context().Done():
			return
		}
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/"), "/")
	if len(parts) < 2 || parts[1] != "events" {
		status(w, http.StatusNotFound, "NotFound")
		return
	}
	ns := parts[0]
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail > 0 {
		f.fail--
		status(w, http.StatusInternalServerError, "InternalError")
		return
	}
	var out *core.Event
	switch {
	case r.Method == http.MethodPost && len(parts) == 2:
		ev := &core.Event{}
		if err := json.Unmarshal(body, ev); err != nil {
			status(w, http.StatusBadRequest, "BadRequest")
			return
		}
		if _, dup := f.events[ns+"/"+ev.Name]; dup {
			status(w, http.StatusConflict, "AlreadyExists")
			return
		}
		f.events[ns+"/"+ev.Name] = ev
		f.ops = append(f.ops, "create "+ev.Name+" "+itoa(ev.Count))
		out = ev
	case r.Method == http.MethodPatch && len(parts) == 3:
		ev := f.events[ns+"/"+parts[2]]
		if ev == nil {
			status(w, http.StatusNotFound, "NotFound")
			return
		}
		if err := json.Unmarshal(body, ev); err != nil {
			status(w, http.StatusBadRequest, "BadRequest")
			return
		}
		f.ops = append(f.ops, "patch "+ev.Name+" "+itoa(ev.Count))
		out = ev
	default:
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(out)
}

func itoa(n int32) string { b, _ := json.Marshal(n); return string(b) }

// written returns the operations so far.
func (f *fakeAPI) written() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ops...)
}

// get returns a copy of the stored Event ns/name.
func (f *fakeAPI) get(ns, name string) *core.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev := f.events[ns+"/"+name]; ev != nil {
		cp := *ev
		return &cp
	}
	return nil
}

// all returns copies of every stored Event.
func (f *fakeAPI) all() []core.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]core.Event, 0, len(f.events))
	for _, ev := range f.events {
		out = append(out, *ev)
	}
	return out
}

// remove deletes a stored Event (as its TTL would).
func (f *fakeAPI) remove(ns, name string) {
	f.mu.Lock()
	delete(f.events, ns+"/"+name)
	f.mu.Unlock()
}

// seriesCollector collects the one series of a Writer named name whose
// label value is label ("" for a series without labels), for
// testutil.ToFloat64.
type seriesCollector struct {
	w     prometheus.Collector
	name  string
	label string
}

func (s *seriesCollector) Describe(ch chan<- *prometheus.Desc) { s.w.Describe(ch) }

func (s *seriesCollector) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric, 64)
	go func() { s.w.Collect(all); close(all) }()
	for m := range all {
		if !strings.Contains(m.Desc().String(), `"`+s.name+`"`) {
			continue
		}
		var d dto.Metric
		if m.Write(&d) != nil {
			continue
		}
		for _, l := range d.GetLabel() {
			if l.GetName() != "component" && l.GetValue() != s.label {
				goto next
			}
		}
		ch <- m
	next:
	}
}

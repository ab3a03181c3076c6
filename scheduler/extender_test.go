package scheduler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
)

// extenderServer is an out-of-process plugin: it keeps nodes whose name
// ends in an even digit and prefers the highest one.
func extenderServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ext/filter", func(w http.ResponseWriter, r *http.Request) {
		var args scheduler.ExtenderArgs
		require.NoError(t, json.NewDecoder(r.Body).Decode(&args))
		res := scheduler.ExtenderFilterResult{FailedNodes: map[string]string{}}
		var keep []string
		for _, n := range *args.NodeNames {
			if (n[len(n)-1]-'0')%2 == 0 {
				keep = append(keep, n)
			} else {
				res.FailedNodes[n] = "node(s) had an odd name"
			}
		}
		res.NodeNames = &keep
		_ = json.NewEncoder(w).Encode(res)
	})
	mux.HandleFunc("POST /ext/prioritize", func(w http.ResponseWriter, r *http.Request) {
		var args scheduler.ExtenderArgs
		require.NoError(t, json.NewDecoder(r.Body).Decode(&args))
		var out []scheduler.HostPriority
		for _, n := range *args.NodeNames {
			out = append(out, scheduler.HostPriority{Host: n, Score: int64(n[len(n)-1] - '0')})
		}
		_ = json.NewEncoder(w).Encode(out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestExtenderFilterAndPrioritize(t *testing.T) {
	srv := extenderServer(t)
	ext, err := scheduler.NewExtender(scheduler.ExtenderConfig{URLPrefix: srv.URL + "/ext", FilterVerb: "filter",
		PrioritizeVerb: "prioritize", Weight: 1000, NodeCacheCapable: true})
	require.NoError(t, err)
	var nodes []*core.Node
	for i := range 9 {
		nodes = append(nodes, simcluster.Node(fmt.Sprintf("n%d", i), "z", "1", "1Gi"))
	}
	sim, err := scheduler.NewSimulator(nil, ext)
	require.NoError(t, err)
	snap := framework.NewSnapshot(nodes, nil)
	node, err := sim.ScheduleOne(context.Background(), snap, simcluster.Pod("p", "100m", ""))
	require.NoError(t, err)
	assert.Equal(t, "n8", node, "even names only, highest wins by weight")

	_, err = sim.ScheduleOne(context.Background(), snap, simcluster.Pod("huge", "900m", ""))
	require.NoError(t, err)
	_, err = sim.ScheduleOne(context.Background(), snap, simcluster.Pod("huge2", "900m", ""))
	require.NoError(t, err)
	_, err = sim.ScheduleOne(context.Background(), snap, simcluster.Pod("huge3", "900m", ""))
	require.NoError(t, err)
	_, err = sim.ScheduleOne(context.Background(), snap, simcluster.Pod("huge4", "900m", ""))
	require.NoError(t, err)
	_, err = sim.ScheduleOne(context.Background(), snap, simcluster.Pod("huge5", "900m", ""))
	require.NoError(t, err)
	_, err = sim.ScheduleOne(context.Background(), snap, simcluster.Pod("huge6", "900m", ""))
	var fe *scheduler.FitError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "0/9 nodes are available: 4 node(s) had an odd name, 5 Insufficient cpu.", fe.Error())
}

func TestExtenderFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"http error", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }, "HTTP 500"},
		{"malformed json", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{nope") }, "decode filter answer"},
		{"reported error", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"error":"database down"}`) }, "database down"},
		{"oversized", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"nodenames":["`+strings.Repeat("x", 17<<20)+`"]}`)
		}, "response over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ext, err := scheduler.NewExtender(scheduler.ExtenderConfig{URLPrefix: srv.URL, FilterVerb: "filter", NodeCacheCapable: true})
			require.NoError(t, err)
			ni := framework.NewNodeInfo(simcluster.Node("n", "z", "1", "1Gi"))
			_, _, err = ext.Filter(context.Background(), simcluster.Pod("p", "", ""), []*framework.NodeInfo{ni})
			assert.ErrorIs(t, err, scheduler.ErrExtender)
			assert.ErrorContains(t, err, tt.want)

			ign, err := scheduler.NewExtender(scheduler.ExtenderConfig{URLPrefix: srv.URL, FilterVerb: "filter", Ignorable: true})
			require.NoError(t, err)
			sim, err := scheduler.NewSimulator(nil, ign)
			require.NoError(t, err)
			_, err = sim.ScheduleOne(context.Background(), framework.NewSnapshot([]*core.Node{ni.Node()}, nil), simcluster.Pod("p", "", ""))
			assert.NoError(t, err, "an ignorable extender's failure is skipped")
		})
	}
	_, err := scheduler.NewExtender(scheduler.ExtenderConfig{})
	assert.ErrorIs(t, err, scheduler.ErrInvalidConfig)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `[{"host":"n","score":11}]`)
	}))
	defer srv.Close()
	ext, err := scheduler.NewExtender(scheduler.ExtenderConfig{URLPrefix: srv.URL, PrioritizeVerb: "p"})
	require.NoError(t, err)
	_, err = ext.Prioritize(context.Background(), simcluster.Pod("p", "", ""), []*framework.NodeInfo{framework.NewNodeInfo(simcluster.Node("n", "z", "1", "1"))})
	assert.ErrorContains(t, err, "score 11")
}

// bodyTransport answers every request with body, without a network.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(bytes.NewReader(b)), Header: http.Header{}}, nil
}

// FuzzExtenderAnswer feeds arbitrary filter and prioritize answers to the
// extender client: it must return a result or an error wrapping
// ErrExtender, never panic, and never accept a node it was not asked about.
func FuzzExtenderAnswer(f *testing.F) {
	f.Add([]byte(`{"nodenames":["a","b"],"failedNodes":{"c":"no"}}`))
	f.Add([]byte(`[{"host":"a","score":3}]`))
	f.Add([]byte(`{"nodes":{"items":[{"metadata":{"name":"a"}}]}}`))
	f.Add([]byte(`{"error":"x"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ext, err := scheduler.NewExtender(scheduler.ExtenderConfig{URLPrefix: "http://127.0.0.1:1", FilterVerb: "f",
			PrioritizeVerb: "p", NodeCacheCapable: true, Client: &http.Client{Transport: bodyTransport(body)}})
		require.NoError(t, err)
		nodes := []*framework.NodeInfo{framework.NewNodeInfo(simcluster.Node("a", "z", "1", "1")), framework.NewNodeInfo(simcluster.Node("b", "z", "1", "1"))}
		kept, _, err := ext.Filter(context.Background(), simcluster.Pod("p", "", ""), nodes)
		if err != nil {
			require.ErrorIs(t, err, scheduler.ErrExtender)
		}
		for _, n := range kept {
			require.Contains(t, []string{"a", "b"}, n.Name())
		}
		scores, err := ext.Prioritize(context.Background(), simcluster.Pod("p", "", ""), nodes)
		if err != nil {
			require.ErrorIs(t, err, scheduler.ErrExtender)
		}
		for _, v := range scores {
			require.True(t, v >= 0 && v <= framework.MaxNodeScore)
		}
	})
}

package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenCases are objects as `kubectl get -o json` prints them from a
// Kubernetes 1.32 cluster. Each must decode into our type and re-encode
// with every field intact. uncarried lists the JSON paths of the golden
// file that we knowingly do not carry; keep it short.
var goldenCases = []struct {
	file      string
	new       func() any
	uncarried []string
}{
	{"pod.json", func() any { return &Pod{} }, nil},
	{"pod_unschedulable.json", func() any { return &Pod{} }, nil},
	{"pod_evicted.json", func() any { return &Pod{} }, nil},
	{"node.json", func() any { return &Node{} }, nil},
	{"service.json", func() any { return &Service{} }, nil},
	{"service_clusterip.json", func() any { return &Service{} }, nil},
	{"endpoints.json", func() any { return &Endpoints{} }, nil},
	{"secret.json", func() any { return &Secret{} }, nil},
	{"secret_tls.json", func() any { return &Secret{} }, nil},
	{"event.json", func() any { return &Event{} }, nil},
	{"event_scheduled.json", func() any { return &Event{} }, nil},
	{"namespace.json", func() any { return &Namespace{} }, nil},
	{"configmap.json", func() any { return &ConfigMap{} }, nil},
	{"persistentvolume.json", func() any { return &PersistentVolume{} }, nil},
	{"persistentvolumeclaim.json", func() any { return &PersistentVolumeClaim{} }, nil},
	{"resourcequota.json", func() any { return &ResourceQuota{} }, nil},
	{"limitrange.json", func() any { return &LimitRange{} }, nil},
	{"serviceaccount.json", func() any { return &ServiceAccount{} }, nil},
}

func TestGoldenRoundTrip(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)

			obj := tc.new()
			dec := json.NewDecoder(bytesReader(raw))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(obj), "every field of the golden file must be known")

			out, err := json.Marshal(obj)
			require.NoError(t, err)

			var want, got any
			require.NoError(t, json.Unmarshal(raw, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			diffs := jsonDiff("", dropNulls(want), dropNulls(got))
			var unexpected []string
			for _, d := range diffs {
				if !slices.Contains(tc.uncarried, d.path) {
					unexpected = append(unexpected, d.String())
				}
			}
			assert.Empty(t, unexpected, "fields lost or changed in the round trip")

			// A second round trip is a fixed point.
			again := tc.new()
			require.NoError(t, json.Unmarshal(out, again))
			out2, err := json.Marshal(again)
			require.NoError(t, err)
			assert.JSONEq(t, string(out), string(out2))
		})
	}
}

// TestGoldenNullTimestamps pins the one deliberate difference from
// Kubernetes' output: zero non-pointer timestamps, which Kubernetes prints
// as null, are omitted. Clients treat the two alike.
func TestGoldenNullTimestamps(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "event.json"))
	require.NoError(t, err)
	var ev Event
	require.NoError(t, json.Unmarshal(raw, &ev))
	assert.True(t, ev.EventTime.IsZero())
	out, err := json.Marshal(&ev)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(out, &m))
	assert.NotContains(t, m, "eventTime")
	assert.Contains(t, m, "reportingComponent")
}

type diff struct {
	path      string
	want, got any
}

func (d diff) String() string {
	return fmt.Sprintf("%s: golden %s, ours %s", d.path, short(d.want), short(d.got))
}

func short(v any) string {
	if v == nil {
		return "<absent>"
	}
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// jsonDiff lists the paths where two generic JSON values differ.
func jsonDiff(path string, want, got any) []diff {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		keys := map[string]bool{}
		for k := range wm {
			keys[k] = true
		}
		for k := range gm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []diff
		for _, k := range sorted {
			out = append(out, jsonDiff(joinPath(path, k), wm[k], gm[k])...)
		}
		return out
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		var out []diff
		for i := range wl {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])...)
		}
		return out
	}
	if reflect.DeepEqual(want, got) {
		return nil
	}
	return []diff{{path: path, want: want, got: got}}
}

func joinPath(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// dropNulls removes object members whose value is null.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}

package protobuf

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFromJSONGolden encodes the JSON of every golden body and converts
// the result back: the JSON must come out as it went in.
func TestFromJSONGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		if strings.HasSuffix(file, "-source.json") {
			continue // a hand-written input (README.md), not Kubernetes' JSON: it spells out zero values Kubernetes omits
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			in, err := os.ReadFile(file)
			require.NoError(t, err)
			pb, err := FromJSON(in)
			require.NoError(t, err)
			back, _, err := ToJSON(pb)
			require.NoError(t, err)
			assertSameJSON(t, string(in), string(back))
		})
	}
}

func TestFromJSONListsAndStatus(t *testing.T) {
	for name, in := range map[string]string{
		"pod list": `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"7","continue":"abc","remainingItemCount":3},
			"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"5","creationTimestamp":"2026-01-02T03:04:05Z"},
			"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"100m"}}}]},"status":{"phase":"Running"}},
			{"metadata":{"name":"b","namespace":"ns"},"spec":{"containers":[]},"status":{}}]}`,
		"status": `{"apiVersion":"v1","kind":"Status","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound",
			"details":{"name":"x","kind":"pods","causes":[{"reason":"FieldValueInvalid","message":"m","field":"spec"}]},"code":404}`,
		"lease with micro time": `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n","namespace":"kube-node-lease"},
			"spec":{"holderIdentity":"n","leaseDurationSeconds":40,"renewTime":"2026-01-02T03:04:05.123456Z"}}`,
		"intorstring and quantities": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
			"spec":{"replicas":0,"selector":{"matchLabels":{"a":"b"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
			"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"memory":"1Gi"}}}]}}},"status":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			pb, err := FromJSON([]byte(in))
			require.NoError(t, err)
			back, _, err := ToJSON(pb)
			if err != nil {
				// Lists and Status are response kinds: ToJSON does not read
				// them, so compare through the item or Status message.
				require.ErrorIs(t, err, ErrUnknownKind)
				return
			}
			assertSameJSON(t, in, string(back))
		})
	}
}

func TestFromJSONRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want error
	}{
		"not JSON":         {`{"apiVersion":`, ErrMalformed},
		"not an object":    {`[1,2]`, ErrMalformed},
		"unknown kind":     {`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`, ErrUnknownKind},
		"unknown list":     {`{"apiVersion":"example.com/v1","kind":"WidgetList","items":[]}`, ErrUnknownKind},
		"unknown member":   {`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"extra":1}`, ErrUnknownField},
		"nested unknown":   {`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","sidecar":true}]}}`, ErrUnknownField},
		"wrong type":       {`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":7}}`, ErrMalformed},
		"int32 overflow":   {`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":4294967296}}`, ErrMalformed},
		"bad time":         {`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","creationTimestamp":"yesterday"}}`, ErrMalformed},
		"bad base64":       {`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"%%%"}}`, ErrMalformed},
		"label not string": {`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":1}}}`, ErrMalformed},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := FromJSON([]byte(tc.in))
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestFromJSONNestingLimit(t *testing.T) {
	// JSONSchemaProps-like depth is not in the core schema; nest
	// ownerReferences' parent objects instead: a deep RawExtension is
	// carried as JSON and must not recurse.
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	_, err := FromJSON([]byte(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"revision":1,"data":` + deep + `}`))
	require.NoError(t, err)
}

func TestAppendWatchEvent(t *testing.T) {
	obj, err := FromJSON([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"3"},"data":{"k":"v"}}`))
	require.NoError(t, err)
	frame := AppendWatchEvent([]byte("x"), "ADDED", obj)
	require.Equal(t, byte('x'), frame[0])
	n := binary.BigEndian.Uint32(frame[1:5])
	body := frame[5:]
	require.Equal(t, int(n), len(body))
	// body: {type=1 "ADDED", object=2 {raw=1 obj}}
	want := appendBytesField(appendBytesField(nil, 1, []byte("ADDED")), 2, appendBytesField(nil, 1, obj))
	assert.Equal(t, want, body)
	back, _, err := ToJSON(obj)
	require.NoError(t, err)
	assertSameJSON(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"3"},"data":{"k":"v"}}`, string(back))
}

// FuzzFromJSON: any input is encoded or refused, never a panic; what is
// encoded converts back to the same JSON value.
func FuzzFromJSON(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"a"}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		pb, err := FromJSON(in)
		if err != nil {
			return
		}
		back, _, err := ToJSON(pb)
		if err != nil {
			require.ErrorIs(t, err, ErrUnknownKind) // lists and Status
			return
		}
		pb2, err := FromJSON(back)
		require.NoError(t, err, "re-encoding %s", back)
		back2, _, err := ToJSON(pb2)
		require.NoError(t, err)
		assertSameJSON(t, string(back), string(back2))
	})
}

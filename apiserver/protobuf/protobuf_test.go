package protobuf

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// TestGolden converts the bodies captured from the real kubectl (see
// testdata/README.md) and compares them with the JSON kubectl prints for
// the same objects.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.pb")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, pb := range files {
		name := strings.TrimSuffix(filepath.Base(pb), ".pb")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(pb)
			require.NoError(t, err)
			want, err := os.ReadFile(strings.TrimSuffix(pb, ".pb") + ".json")
			if errors.Is(err, os.ErrNotExist) {
				_, _, err := ToJSON(body)
				require.ErrorIs(t, err, ErrUnknownKind)
				return
			}
			require.NoError(t, err)
			got, gvk, err := ToJSON(body)
			require.NoError(t, err)
			assertSameJSON(t, string(want), string(got))
			var tm meta.TypeMeta
			require.NoError(t, json.Unmarshal(want, &tm))
			assert.Equal(t, tm.APIVersion, gvk.GroupVersion().String())
			assert.Equal(t, tm.Kind, gvk.Kind)
		})
	}
}

func TestToJSONErrors(t *testing.T) {
	ns := objectMetaPB("x")
	good := wrap("v1", "Namespace", pbMsg{}.msg(1, ns))
	tests := []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{name: "empty", in: nil, want: ErrNotProtobuf},
		{name: "short magic", in: []byte("k8s"), want: ErrNotProtobuf},
		{name: "json body", in: []byte(`{"kind":"Namespace"}`), want: ErrNotProtobuf},
		{name: "magic only", in: []byte("k8s\x00"), want: ErrMalformed, msg: "no kind"},
		{name: "truncated tag varint", in: append([]byte("k8s\x00"), 0x8a), want: ErrMalformed, msg: "truncated varint"},
		{name: "length beyond input", in: append([]byte("k8s\x00"), 0x0a, 0x05, 0x0a), want: ErrMalformed, msg: "length exceeds"},
		{name: "huge length", in: append([]byte("k8s\x00"), 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f), want: ErrMalformed, msg: "length exceeds"},
		{name: "varint overflow", in: append([]byte("k8s\x00"), 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), want: ErrMalformed, msg: "overflows"},
		{name: "field number zero", in: append([]byte("k8s\x00"), 0x02, 0x00), want: ErrMalformed, msg: "field number"},
		{name: "group wire type", in: append([]byte("k8s\x00"), 0x0b), want: ErrMalformed, msg: "groups"},
		{name: "wire type 6", in: append([]byte("k8s\x00"), 0x0e), want: ErrMalformed, msg: "wire type"},
		{name: "truncated fixed64", in: append([]byte("k8s\x00"), 0x09, 1, 2, 3), want: ErrMalformed, msg: "truncated"},
		{name: "envelope field as varint", in: append([]byte("k8s\x00"), 0x10, 0x01), want: ErrMalformed, msg: "runtime.Unknown field 2"},
		{name: "gzip content", in: append([]byte("k8s\x00"), pbMsg{}.msg(1, pbMsg{}.str(1, "v1").str(2, "Namespace")).str(3, "gzip")...), want: ErrMalformed, msg: "gzip"},
		{name: "unknown kind", in: wrap("storage.k8s.io/v1beta1", "VolumeAttributesClass", nil), want: ErrUnknownKind, msg: "storage.k8s.io/v1beta1, Kind=VolumeAttributesClass"},
		{name: "known kind, wrong version", in: wrap("apps/v1beta1", "Deployment", nil), want: ErrUnknownKind, msg: "apps/v1beta1"},
		{name: "metadata as varint", in: wrap("v1", "Namespace", pbMsg{}.varint(1, 3)), want: ErrMalformed, msg: "core.Namespace field 1"},
		{name: "name as varint", in: wrap("v1", "Namespace", pbMsg{}.msg(1, pbMsg{}.varint(1, 3))), want: ErrMalformed, msg: "meta.ObjectMeta field 1"},
		{name: "truncated nested message", in: wrap("v1", "Namespace", pbMsg{}.msg(1, pbMsg{0x0a, 0x09, 'x'})), want: ErrMalformed, msg: "meta.ObjectMeta"},
		{name: "map entry value as varint", in: wrap("v1", "ConfigMap", pbMsg{}.msg(2, pbMsg{}.str(1, "k").varint(2, 1))), want: ErrMalformed, msg: "map entry"},
		{name: "time out of range", in: wrap("v1", "Namespace", pbMsg{}.msg(1, pbMsg{}.msg(8, pbMsg{}.varint(1, 1<<40)))), want: ErrMalformed, msg: "outside years"},
		{name: "time seconds as string", in: wrap("v1", "Namespace", pbMsg{}.msg(1, pbMsg{}.msg(8, pbMsg{}.str(1, "now")))), want: ErrMalformed, msg: "meta.Time field 1"},
		{name: "intorstring bad type", in: wrap("v1", "Service", pbMsg{}.msg(2, pbMsg{}.msg(1, pbMsg{}.msg(4, pbMsg{}.varint(1, 7))))), want: ErrMalformed, msg: "intstr.IntOrString"},
		{name: "raw extension not json", in: wrap("apps/v1", "ControllerRevision", pbMsg{}.msg(2, pbMsg{}.str(1, "{not json"))), want: ErrMalformed, msg: "raw JSON"},
		{name: "nested raw extension unknown kind", in: wrap("apps/v1", "ControllerRevision", pbMsg{}.msg(2, pbMsg{}.bytes(1, wrap("x/v1", "Y", nil)))), want: ErrUnknownKind},
		{name: "truncated packed varint", in: wrap("v1", "Pod", pbMsg{}.msg(2, pbMsg{}.msg(2, pbMsg{}.msg(25, pbMsg{}.msg(2, pbMsg{}.bytes(2, []byte{0x05, 0x80})))))), want: ErrMalformed, msg: "core.ContainerRestartRuleOnExitCodes field 2: packed element"},
	}
	_, _, err := ToJSON(good)
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := ToJSON(tc.in)
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// TestToJSONNestingLimit nests ControllerRevisions in RawExtensions beyond
// the depth limit.
func TestToJSONNestingLimit(t *testing.T) {
	body := wrap("apps/v1", "ControllerRevision", pbMsg{}.varint(3, 1))
	for i := 0; i < 40; i++ {
		body = wrap("apps/v1", "ControllerRevision", pbMsg{}.msg(2, pbMsg{}.bytes(1, body)))
	}
	_, _, err := ToJSON(body)
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "nesting deeper")

	shallow := wrap("apps/v1", "ControllerRevision", pbMsg{}.msg(2, pbMsg{}.bytes(1,
		wrap("v1", "ConfigMap", pbMsg{}.entry(2, "a", "b")))).varint(3, 2))
	got, _, err := ToJSON(shallow)
	require.NoError(t, err)
	assertSameJSON(t, `{"apiVersion":"apps/v1","kind":"ControllerRevision","revision":2,
		"data":{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"}}}`, string(got))
}

// TestToJSONOutputLimit checks the output bound with a small limit.
func TestToJSONOutputLimit(t *testing.T) {
	raw := pbMsg{}
	for i := 0; i < 100; i++ {
		raw = raw.entry(2, "key", "value")
	}
	d := &decoder{reg: defaultRegistry(), limit: 64}
	_, err := d.convert(wrap("v1", "ConfigMap", raw))
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "exceeds 64 bytes")
}

// TestToJSONTruncations feeds every prefix of every golden body: each
// gives a typed error or valid JSON, and nothing panics.
func TestToJSONTruncations(t *testing.T) {
	files, err := filepath.Glob("testdata/*.pb")
	require.NoError(t, err)
	for _, f := range files {
		body, err := os.ReadFile(f)
		require.NoError(t, err)
		for n := 0; n < len(body); n++ {
			checkOutput(t, body[:n])
		}
	}
}

// checkOutput asserts the fuzz property: a typed error, or valid JSON
// within the output bound.
func checkOutput(t *testing.T, in []byte) {
	t.Helper()
	out, _, err := ToJSON(in)
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotProtobuf) && !errors.Is(err, ErrUnknownKind) {
			t.Fatalf("untyped error for %q: %v", in, err)
		}
		return
	}
	if !json.Valid(out) {
		t.Fatalf("invalid JSON for %q: %s", in, out)
	}
	if len(out) > outputFactor*len(in)+outputSlack {
		t.Fatalf("output %d bytes for %d input bytes", len(out), len(in))
	}
}

func FuzzToJSON(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.pb")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add(wrap("apps/v1", "ControllerRevision", pbMsg{}.msg(2, pbMsg{}.str(1, `{"a":[1,2]}`))))
	f.Add([]byte("k8s\x00"))
	// the JSONSchemaProps wrappers in each form (testdata/crd-*.pb has
	// Kubernetes' own encodings of whole CRDs)
	f.Add(crdBody(props("object").msg(24, pbMsg{}.msg(2, props("string"))).msg(30, pbMsg{}.varint(1, 0)).
		msg(32, pbMsg{}.str(1, "a").msg(2, pbMsg{}.str(2, "b"))).msg(8, jsonRaw(`{"a":[1]}`)).msg(20, pbMsg{})))
	f.Add(crdBody(props("array").msg(24, pbMsg{}.msg(1, props("string"))).msg(33, pbMsg{}.msg(2, props("integer")))))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkOutput(t, in)
	})
}

// TestToJSONConcurrent converts from several goroutines at once (run with
// -race): the shared schema is read-only.
func TestToJSONConcurrent(t *testing.T) {
	body, err := os.ReadFile("testdata/pod.pb")
	require.NoError(t, err)
	want, _, err := ToJSON(body)
	require.NoError(t, err)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			for j := 0; j < 20; j++ {
				got, _, err := ToJSON(body)
				if err == nil && string(got) != string(want) {
					err = errors.New("different output")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for i := 0; i < 8; i++ {
		require.NoError(t, <-errs)
	}
}

package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

var podGVK = core.GroupVersion().WithKind("Pod")

// manyLabels is 20 distinct label members.
var manyLabels = func() string {
	var b []byte
	for i := range 20 {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"k%d":"v"`, i)
	}
	return string(b)
}()

func TestDecodeObjectFindsUnknownAndDuplicateFields(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		problems []string
	}{
		{"clean", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1"}},"ports":[{"containerPort":80}]}]}}`, nil},
		{"unknown at the top", `{"kind":"Pod","x":1}`, []string{`unknown field "x"`}},
		{"unknown in a list element", `{"spec":{"containers":[{"name":"a"},{"name":"b","foo":{"deep":[1]}}]}}`, []string{`unknown field "spec.containers[1].foo"`}},
		{"duplicate struct field", `{"metadata":{"name":"a","name":"b"}}`, []string{`duplicate field "metadata.name"`}},
		{"duplicate map key", `{"metadata":{"labels":{"a":"1","a":"2"}}}`, []string{`duplicate field "metadata.labels.a"`}},
		{"document order", `{"z":1,"metadata":{"name":"a","name":"b"},"y":2}`, []string{`unknown field "z"`, `duplicate field "metadata.name"`, `unknown field "y"`}},
		{"case differs", `{"Spec":{"nodeName":"n"}}`, []string{`unknown field "Spec"`}},
		{"escaped key", `{"sp\u0065c":{"nodeName":"n"},"\u0078":1}`, []string{`unknown field "x"`}},
		{"opaque values are not looked into", `{"spec":{"containers":[{"resources":{"limits":{"cpu":{"weird":1}}}}]},"metadata":{"creationTimestamp":null}}`, nil},
		{"null and empty", `{"spec":null,"metadata":{}, "status" : { } }`, nil},
		{"duplicate among many keys", `{"metadata":{"labels":{` + manyLabels + `,"k3":"again"}}}`, []string{`duplicate field "metadata.labels.k3"`}},
		{"unknown inside unknown reported once", `{"bogus":{"a":{"b":1}}}`, []string{`unknown field "bogus"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pod core.Pod
			warnings, err := decodeObject([]byte(tc.body), &pod, podGVK, fieldValidationWarn)
			if tc.name == "opaque values are not looked into" {
				require.Error(t, err, "a Quantity that is an object does not decode")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.problems, warnings)
		})
	}
}

func TestDecodeObjectDirectives(t *testing.T) {
	body := []byte(`{"metadata":{"name":"a","Name":"b","name":"c"},"Spec":{"nodeName":"n"},"spec":{"schedulerName":"s"},"SPEC":{}}`)
	for _, d := range []string{fieldValidationIgnore, fieldValidationWarn} {
		var pod core.Pod
		warnings, err := decodeObject(body, &pod, podGVK, d)
		require.NoError(t, err, d)
		assert.Equal(t, "c", pod.Name, "%s: the last duplicate wins, the case variant is dropped", d)
		assert.Empty(t, pod.Spec.NodeName, "%s: Spec is not spec", d)
		assert.Equal(t, "s", pod.Spec.SchedulerName, d)
		if d == fieldValidationIgnore {
			assert.Empty(t, warnings)
		} else {
			assert.Equal(t, []string{`unknown field "metadata.Name"`, `duplicate field "metadata.name"`, `unknown field "Spec"`, `unknown field "SPEC"`}, warnings)
		}
	}
	var pod core.Pod
	_, err := decodeObject(body, &pod, podGVK, fieldValidationStrict)
	st := apierrors.FromError(err)
	require.NotNil(t, st)
	assert.Equal(t, int32(http.StatusBadRequest), st.Code)
	assert.Equal(t, `Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "metadata.Name", duplicate field "metadata.name", unknown field "Spec", unknown field "SPEC"`, st.Message)

	for _, bad := range []string{`{"metadata":`, `{"spec":{"containers":"x"}}`, `{} {}`, `[1]`} {
		_, err := decodeObject([]byte(bad), &pod, podGVK, fieldValidationWarn)
		st := apierrors.FromError(err)
		require.NotNil(t, st, bad)
		assert.Equal(t, int32(http.StatusBadRequest), st.Code, bad)
		assert.Contains(t, st.Message, `Pod in version "v1" cannot be handled as a Pod: `, bad)
	}
	_, err = decodeObject([]byte("  "), &pod, podGVK, fieldValidationWarn)
	assert.Equal(t, "the request body is empty", apierrors.FromError(err).Message)
}

func TestFieldValidationParameter(t *testing.T) {
	for v, want := range map[string]string{"": fieldValidationWarn, "Warn": fieldValidationWarn, "Strict": fieldValidationStrict, "Ignore": fieldValidationIgnore} {
		got, err := fieldValidation(url.Values{"fieldValidation": {v}}, "CreateOptions")
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := fieldValidation(url.Values{"fieldValidation": {"strict"}}, "PatchOptions")
	st := apierrors.FromError(err)
	require.NotNil(t, st)
	assert.Equal(t, int32(http.StatusUnprocessableEntity), st.Code)
	assert.Equal(t, `PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`, st.Message)
}

func TestAddWarnings(t *testing.T) {
	h := http.Header{}
	addWarnings(h, []string{`unknown field "a\b"`, `unknown field "a\b"`, "x\ny"})
	assert.Equal(t, []string{`299 - "unknown field \"a\\b\""`, `299 - "x y"`}, h.Values("Warning"))
}

// FuzzDecodeObject checks the field scanner against encoding/json: it
// never panics, takes every document json.Valid takes, and without case
// variants to drop decodes exactly what json.Unmarshal decodes.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c"}]}}`))
	f.Add([]byte(`{"metadata":{"name":"a","Name":"b"},"Spec":{},"x":[1,{"y":null}],"\u0073pec":{}}`))
	f.Add([]byte(` { "spec" : { "containers" : [ { } , { "ports" : [ ] } ] } } `))
	f.Add([]byte(`{"a":"\"\\"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got core.Pod
		_, err := decodeObject(b, &got, podGVK, fieldValidationIgnore)
		var want core.Pod
		werr := json.Unmarshal(b, &want)
		sc := &fieldScanner{b: b}
		serr := sc.document(reflectTypeOfPod)
		if json.Valid(b) && serr != nil {
			t.Fatalf("scanner rejects valid JSON %q: %v", b, serr)
		}
		if len(sc.drops) > 0 {
			return
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("decodeObject err %v, json.Unmarshal err %v, for %q", err, werr, b)
		}
		if err == nil {
			gb, _ := json.Marshal(&got)
			wb, _ := json.Marshal(&want)
			if string(gb) != string(wb) {
				t.Fatalf("decoded %s, json.Unmarshal %s", gb, wb)
			}
		}
	})
}

var reflectTypeOfPod = reflect.TypeOf(&core.Pod{})

// BenchmarkDecodeObject compares decoding a pod with the field scanner
// (every create, update and patch) to json.Unmarshal alone.
func BenchmarkDecodeObject(b *testing.B) {
	body := []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","labels":{"app":"web","tier":"front"}},` +
		`"spec":{"containers":[{"name":"hello","image":"orkit.local/hello:v1","ports":[{"containerPort":8080}],` +
		`"resources":{"requests":{"cpu":"100m","memory":"64Mi"}},"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}],"restartPolicy":"Always"}}`)
	b.Run("decodeObject", func(b *testing.B) {
		for b.Loop() {
			var pod core.Pod
			if _, err := decodeObject(body, &pod, podGVK, fieldValidationWarn); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scan only", func(b *testing.B) {
		for b.Loop() {
			sc := &fieldScanner{b: body}
			if err := sc.document(reflectTypeOfPod); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var pod core.Pod
			if err := json.Unmarshal(body, &pod); err != nil {
				b.Fatal(err)
			}
		}
	})
}

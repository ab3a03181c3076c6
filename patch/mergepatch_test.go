package patch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rfc7386Cases are the examples of RFC 7386 Appendix A.
var rfc7386Cases = []struct{ original, patch, want string }{
	{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
	{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
	{`{"a":"b"}`, `{"a":null}`, `{}`},
	{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
	{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
	{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
	{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
	{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
	{`["a","b"]`, `["c","d"]`, `["c","d"]`},
	{`{"a":"b"}`, `["c"]`, `["c"]`},
	{`{"a":"foo"}`, `null`, `null`},
	{`{"a":"foo"}`, `"bar"`, `"bar"`},
	{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
	{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
	{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
}

func TestMergePatchRFC7386(t *testing.T) {
	for _, tc := range rfc7386Cases {
		t.Run(tc.original+"+"+tc.patch, func(t *testing.T) {
			doc, err := decodeJSON([]byte(tc.original))
			require.NoError(t, err)
			p, err := decodeJSON([]byte(tc.patch))
			require.NoError(t, err)
			got, err := encodeJSON(mergePatch(doc, p))
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got))

			// Through Apply, only object patches are accepted.
			out, err := Apply(MergePatch, []byte(tc.original), []byte(tc.patch), "")
			if strings.HasPrefix(tc.patch, "{") {
				require.NoError(t, err)
				assert.JSONEq(t, tc.want, string(out))
			} else {
				require.ErrorIs(t, err, ErrInvalidPatch)
				assert.Contains(t, err.Error(), "must be a JSON object")
			}
		})
	}
}

func TestMergePatchKubectl(t *testing.T) {
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"},"resourceVersion":"7"},
		"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"x:1"},{"name":"side","image":"s:1"}]}}}}`
	tests := []struct {
		name, patch, want string
	}{
		{"label add", `{"metadata":{"labels":{"tier":"front"}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web","tier":"front"},"resourceVersion":"7"},
			"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"x:1"},{"name":"side","image":"s:1"}]}}}}`},
		{"label remove (kubectl label app-)", `{"metadata":{"labels":{"app":null}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{},"resourceVersion":"7"},
			"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"x:1"},{"name":"side","image":"s:1"}]}}}}`},
		{"annotate with resourceVersion", `{"metadata":{"annotations":{"a":"b"},"resourceVersion":"7"}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"},"annotations":{"a":"b"},"resourceVersion":"7"},
			"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"x:1"},{"name":"side","image":"s:1"}]}}}}`},
		{"scale", `{"spec":{"replicas":5}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"},"resourceVersion":"7"},
			"spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"web","image":"x:1"},{"name":"side","image":"s:1"}]}}}}`},
		{"lists are replaced", `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"x:2"}]}}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"},"resourceVersion":"7"},
			"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"x:2"}]}}}}`},
		{"empty patch", `{}`, deploy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(MergePatch, []byte(deploy), []byte(tc.patch), "Deployment")
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(out))
		})
	}
}

func TestMergePatchKeepsNumbersAndHTML(t *testing.T) {
	out, err := Apply(MergePatch, []byte(`{"big":12345678901234567890,"f":1.50,"s":"<a&b>"}`), []byte(`{"x":1e3}`), "")
	require.NoError(t, err)
	assert.Equal(t, `{"big":12345678901234567890,"f":1.50,"s":"<a&b>","x":1e3}`, string(out))
}

func TestApplyErrors(t *testing.T) {
	big := `{"a":"` + strings.Repeat("x", MaxDocumentSize) + `"}`
	tests := []struct {
		name      string
		typ       Type
		original  string
		patch     string
		wantErr   error
		wantInMsg string
	}{
		{"apply patch", ApplyPatch, `{}`, `{}`, ErrUnsupported, "server-side apply"},
		{"unknown type", Type("text/plain"), `{}`, `{}`, ErrUnsupported, "text/plain"},
		{"empty type", Type(""), `{}`, `{}`, ErrUnsupported, ""},
		{"malformed patch", MergePatch, `{}`, `{"a":`, ErrInvalidPatch, "malformed JSON"},
		{"empty patch body", MergePatch, `{}`, ``, ErrInvalidPatch, "empty body"},
		{"trailing data", MergePatch, `{}`, `{} {}`, ErrInvalidPatch, "after the top-level value"},
		{"array merge patch", MergePatch, `{}`, `[]`, ErrInvalidPatch, "got array"},
		{"malformed original", MergePatch, `{"a"`, `{}`, ErrInvalidDocument, "malformed JSON"},
		{"oversized patch", MergePatch, `{}`, big, ErrTooLarge, "patch is"},
		{"oversized result", MergePatch, `{"b":"` + strings.Repeat("y", MaxDocumentSize-20) + `"}`, `{"a":"` + strings.Repeat("x", 100) + `"}`, ErrTooLarge, "patched document"},
		{"strategic not object", StrategicMerge, `{}`, `"x"`, ErrInvalidPatch, "got string"},
		{"json patch not array", JSONPatch, `{}`, `{}`, ErrInvalidPatch, "got object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := []byte(tc.original)
			before := string(orig)
			out, err := Apply(tc.typ, orig, []byte(tc.patch), "Pod")
			require.ErrorIs(t, err, tc.wantErr)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), tc.wantInMsg)
			assert.Equal(t, before, string(orig), "original must not change")
		})
	}
}

func TestApplyTypeWithParameters(t *testing.T) {
	out, err := Apply(Type("Application/Merge-Patch+JSON; charset=utf-8"), []byte(`{"a":1}`), []byte(`{"b":2}`), "")
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1,"b":2}`, string(out))
}

func TestEqualNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1", "1.0", true},
		{"1", "1e0", true},
		{"100", "1e2", true},
		{"0.5", "5e-1", true},
		{"-0", "0", true},
		{"0.000", "0e10", true},
		{"1", "2", false},
		{"-1", "1", false},
		{"12345678901234567890", "12345678901234567891", false},
		{"1e9999999999999999999999", "1e9999999999999999999999", true},
		{"1E3", "1000", true},
	}
	for _, tc := range tests {
		t.Run(tc.a+"="+tc.b, func(t *testing.T) {
			assert.Equal(t, tc.want, equal(json.Number(tc.a), json.Number(tc.b)))
		})
	}
}

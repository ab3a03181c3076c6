package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// checkResult asserts what every Apply call promises whatever its input:
// the original is not modified, an error is one of the package's sentinels
// and comes with no document, and a result is valid JSON within the limit.
func checkResult(t *testing.T, original, before, out []byte, err error) {
	t.Helper()
	if !bytes.Equal(original, before) {
		t.Fatalf("original modified: %q -> %q", before, original)
	}
	if err != nil {
		if out != nil {
			t.Fatalf("error %v with a result %q", err, out)
		}
		if !errors.Is(err, ErrInvalidPatch) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrInvalidDocument) {
			t.Fatalf("untyped error: %v", err)
		}
		return
	}
	if !json.Valid(out) {
		t.Fatalf("result is not valid JSON: %q", out)
	}
	if len(out) > MaxDocumentSize {
		t.Fatalf("result of %d bytes passes the limit", len(out))
	}
}

func FuzzMergePatch(f *testing.F) {
	for _, tc := range rfc7386Cases {
		f.Add([]byte(tc.original), []byte(tc.patch))
	}
	f.Add([]byte(testDeployment), []byte(`{"metadata":{"labels":{"a":null,"b":"c"}}}`))
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		before := bytes.Clone(original)
		out, err := Apply(MergePatch, original, patch, "")
		checkResult(t, original, before, out, err)
		if err != nil {
			return
		}
		// RFC 7386 patches are idempotent.
		again, err := Apply(MergePatch, out, patch, "")
		if err != nil {
			t.Fatalf("second application failed: %v", err)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
	})
}

func FuzzJSONPatch(f *testing.F) {
	f.Add([]byte(`{"foo":["bar","baz"]}`), []byte(`[{"op":"add","path":"/foo/1","value":"qux"}]`))
	f.Add([]byte(`{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`), []byte(`[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`))
	f.Add([]byte(`{"a":[1,2,3]}`), []byte(`[{"op":"copy","from":"/a","path":"/a/-"},{"op":"copy","from":"/a","path":"/a/0"}]`))
	f.Add([]byte(`{"/":9,"~1":10}`), []byte(`[{"op":"test","path":"/~01","value":10},{"op":"remove","path":"/~1"}]`))
	f.Add([]byte(`{"a":{"b":1}}`), []byte(`[{"op":"replace","path":"","value":[]},{"op":"add","path":"/-","value":null}]`))
	f.Add([]byte(testDeployment), []byte(`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"x:2"}]`))
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		before := bytes.Clone(original)
		out, err := Apply(JSONPatch, original, patch, "")
		checkResult(t, original, before, out, err)
	})
}

func FuzzStrategicMerge(f *testing.F) {
	f.Add([]byte(testDeployment), []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"x:2"}]}}}}`), "Deployment")
	f.Add([]byte(testDeployment), []byte(`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"web"}],"containers":[{"name":"side","$patch":"delete"}]}}}}`), "Deployment")
	f.Add([]byte(testDeployment), []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["c"],"$setElementOrder/finalizers":["c","b"]}}`), "Deployment")
	f.Add([]byte(testDeployment), []byte(`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`), "Widget")
	f.Add([]byte(`{"spec":{"ports":[{"port":80,"protocol":"TCP"}]}}`), []byte(`{"spec":{"ports":[{"$patch":"replace"},{"port":53}]}}`), "Service")
	f.Add([]byte(`{"a":1}`), []byte(`{"$patch":"delete"}`), "")
	f.Fuzz(func(t *testing.T, original, patch []byte, kind string) {
		before := bytes.Clone(original)
		out, err := Apply(StrategicMerge, original, patch, kind)
		checkResult(t, original, before, out, err)
	})
}

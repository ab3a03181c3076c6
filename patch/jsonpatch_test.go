package patch

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONPatchRFC6902(t *testing.T) {
	tests := []struct {
		name, doc, patch, want string
		wantErr                error
	}{
		{"A.1 add object member", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`, nil},
		{"A.2 add array element", `{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`, nil},
		{"A.3 remove member", `{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`, nil},
		{"A.4 remove array element", `{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`, nil},
		{"A.5 replace", `{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`, nil},
		{"A.6 move", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`,
			`[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`,
			`{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`, nil},
		{"A.7 move array element", `{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`,
			`{"foo":["all","cows","eat","grass"]}`, nil},
		{"A.8 test success", `{"baz":"qux","foo":["a",2,"c"]}`,
			`[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`,
			`{"baz":"qux","foo":["a",2,"c"]}`, nil},
		{"A.9 test failure", `{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`, "", ErrTestFailed},
		{"A.10 add nested member", `{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`,
			`{"foo":"bar","child":{"grandchild":{}}}`, nil},
		{"A.11 ignore unknown members", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`,
			`{"foo":"bar","baz":"qux"}`, nil},
		{"A.12 add to nonexistent target", `{"foo":"bar"}`, `[{"op":"add","path":"/baz/bat","value":"qux"}]`, "", ErrInvalidPatch},
		{"A.13 duplicate op member (last wins: remove of missing)", `{"foo":"bar"}`,
			`[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`, "", ErrInvalidPatch},
		{"A.14 escape ordering", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`, nil},
		{"A.15 string is not number", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`, "", ErrTestFailed},
		{"A.16 add array value", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`,
			`{"foo":["bar",["abc","def"]]}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(JSONPatch, []byte(tc.doc), []byte(tc.patch), "")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.ErrorIs(t, err, ErrInvalidPatch)
				assert.Nil(t, out)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(out))
		})
	}
}

func TestJSONPatchOperations(t *testing.T) {
	pod := `{"metadata":{"name":"p","labels":{"a/b":"1","c~d":"2"}},"spec":{"containers":[{"name":"web","image":"x:1"}]}}`
	tests := []struct {
		name, doc, patch, want string
	}{
		{"empty patch", `{"a":1}`, `[]`, `{"a":1}`},
		{"replace root", `{"a":1}`, `[{"op":"replace","path":"","value":{"b":2}}]`, `{"b":2}`},
		{"add root", `{"a":1}`, `[{"op":"add","path":"","value":[1]}]`, `[1]`},
		{"add replaces existing member", `{"a":1}`, `[{"op":"add","path":"/a","value":2}]`, `{"a":2}`},
		{"add at end index", `{"a":[1]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2]}`},
		{"add at front", `{"a":[1]}`, `[{"op":"add","path":"/a/0","value":0}]`, `{"a":[0,1]}`},
		{"add null value", `{}`, `[{"op":"add","path":"/a","value":null}]`, `{"a":null}`},
		{"empty key", `{"":1}`, `[{"op":"replace","path":"/","value":2}]`, `{"":2}`},
		{"escaped label keys", pod,
			`[{"op":"replace","path":"/metadata/labels/a~1b","value":"x"},{"op":"remove","path":"/metadata/labels/c~0d"}]`,
			`{"metadata":{"name":"p","labels":{"a/b":"x"}},"spec":{"containers":[{"name":"web","image":"x:1"}]}}`},
		{"set image", pod, `[{"op":"replace","path":"/spec/containers/0/image","value":"x:2"}]`,
			`{"metadata":{"name":"p","labels":{"a/b":"1","c~d":"2"}},"spec":{"containers":[{"name":"web","image":"x:2"}]}}`},
		{"copy", `{"a":{"b":[1]}}`, `[{"op":"copy","from":"/a","path":"/c"},{"op":"add","path":"/c/b/-","value":2}]`,
			`{"a":{"b":[1]},"c":{"b":[1,2]}}`},
		{"move to same place", `{"a":1}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":1}`},
		{"move array element back", `{"a":[1,2,3]}`, `[{"op":"move","from":"/a/2","path":"/a/0"}]`, `{"a":[3,1,2]}`},
		{"move to end", `{"a":[1,2,3],"b":[]}`, `[{"op":"move","from":"/a/0","path":"/b/-"}]`, `{"a":[2,3],"b":[1]}`},
		{"test numbers by value", `{"a":1.0,"b":[{"x":true}]}`,
			`[{"op":"test","path":"/a","value":1},{"op":"test","path":"/b","value":[{"x":true}]}]`, `{"a":1.0,"b":[{"x":true}]}`},
		{"test null", `{"a":null}`, `[{"op":"test","path":"/a","value":null}]`, `{"a":null}`},
		{"test whole document", `{"a":1}`, `[{"op":"test","path":"","value":{"a":1}}]`, `{"a":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(JSONPatch, []byte(tc.doc), []byte(tc.patch), "")
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(out))
		})
	}
}

func TestJSONPatchInvalid(t *testing.T) {
	tests := []struct {
		name, doc, patch string
		index            int
		wantInMsg        string
	}{
		{"not an object", `{}`, `[1]`, 0, "must be a JSON object"},
		{"missing op", `{}`, `[{"path":"/a"}]`, 0, `missing "op"`},
		{"op not a string", `{}`, `[{"op":1,"path":"/a"}]`, 0, `missing "op"`},
		{"unknown op", `{}`, `[{"op":"append","path":"/a"}]`, 0, `unknown op "append"`},
		{"missing path", `{}`, `[{"op":"remove"}]`, 0, `missing "path"`},
		{"path not a string", `{}`, `[{"op":"remove","path":3}]`, 0, `"path" must be a string`},
		{"path without slash", `{"a":1}`, `[{"op":"remove","path":"a"}]`, 0, `must be empty or start with "/"`},
		{"bad escape", `{"a":1}`, `[{"op":"remove","path":"/a~2"}]`, 0, "invalid escape"},
		{"trailing tilde", `{"a":1}`, `[{"op":"remove","path":"/a~"}]`, 0, "invalid escape"},
		{"missing value", `{}`, `[{"op":"add","path":"/a"}]`, 0, `missing "value"`},
		{"missing from", `{}`, `[{"op":"copy","path":"/a"}]`, 0, `missing "from"`},
		{"bad from", `{}`, `[{"op":"move","from":"x","path":"/a"}]`, 0, "from:"},
		{"second op fails", `{"a":1}`, `[{"op":"remove","path":"/a"},{"op":"remove","path":"/a"}]`, 1, `member "a" not found`},
		{"remove root", `{"a":1}`, `[{"op":"remove","path":""}]`, 0, "whole document"},
		{"replace missing", `{}`, `[{"op":"replace","path":"/a","value":1}]`, 0, "not found"},
		{"index out of bounds", `{"a":[1]}`, `[{"op":"add","path":"/a/2","value":1}]`, 0, "out of bounds"},
		{"remove past end", `{"a":[1]}`, `[{"op":"remove","path":"/a/1"}]`, 0, "out of bounds"},
		{"dash on remove", `{"a":[1]}`, `[{"op":"remove","path":"/a/-"}]`, 0, `"-"`},
		{"dash on replace", `{"a":[1]}`, `[{"op":"replace","path":"/a/-","value":1}]`, 0, `"-"`},
		{"leading zero", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/01"}]`, 0, "not a non-negative integer"},
		{"negative index", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/-1"}]`, 0, "not a non-negative integer"},
		{"huge index", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/99999999999999999999999"}]`, 0, "out of bounds"},
		{"index into scalar", `{"a":1}`, `[{"op":"add","path":"/a/b","value":1}]`, 0, "cannot add"},
		{"path through scalar", `{"a":1}`, `[{"op":"add","path":"/a/b/c","value":1}]`, 0, "cannot look up"},
		{"move into child", `{"a":{"b":{}}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`, 0, "own children"},
		{"move missing", `{}`, `[{"op":"move","from":"/x","path":"/y"}]`, 0, "from:"},
		{"copy missing", `{}`, `[{"op":"copy","from":"/x","path":"/y"}]`, 0, "from:"},
		{"test missing path", `{}`, `[{"op":"test","path":"/x","value":1}]`, 0, "not found"},
		{"test failed", `{"a":[1,2]}`, `[{"op":"test","path":"/a","value":[2,1]}]`, 0, "not equal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := []byte(tc.doc)
			out, err := Apply(JSONPatch, orig, []byte(tc.patch), "")
			require.ErrorIs(t, err, ErrInvalidPatch)
			assert.Nil(t, out)
			var opErr *OperationError
			require.True(t, errors.As(err, &opErr), "want *OperationError, got %T: %v", err, err)
			assert.Equal(t, tc.index, opErr.Index)
			assert.Contains(t, err.Error(), tc.wantInMsg)
			assert.Contains(t, err.Error(), fmt.Sprintf("operation %d", tc.index))
			assert.Equal(t, tc.doc, string(orig))
		})
	}
}

// A failing operation leaves nothing half-applied: the earlier operations'
// effects are not visible anywhere and the original bytes are unchanged.
func TestJSONPatchAtomic(t *testing.T) {
	orig := []byte(`{"a":{"b":[1,2,3]},"c":"d"}`)
	before := string(orig)
	patch := `[{"op":"remove","path":"/a/b/0"},{"op":"add","path":"/x","value":1},{"op":"test","path":"/c","value":"e"}]`
	out, err := Apply(JSONPatch, orig, []byte(patch), "")
	require.ErrorIs(t, err, ErrTestFailed)
	assert.Nil(t, out)
	assert.Equal(t, before, string(orig))
	var opErr *OperationError
	require.ErrorAs(t, err, &opErr)
	assert.Equal(t, 2, opErr.Index)
	assert.Equal(t, "test", opErr.Op)
	assert.Equal(t, "/c", opErr.Path)

	// The same original still patches cleanly afterwards.
	out, err = Apply(JSONPatch, orig, []byte(`[{"op":"remove","path":"/a/b/0"}]`), "")
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":{"b":[2,3]},"c":"d"}`, string(out))
}

func TestJSONPatchLimits(t *testing.T) {
	t.Run("too many operations", func(t *testing.T) {
		ops := strings.Repeat(`{"op":"test","path":"","value":{}},`, MaxOperations+1)
		_, err := Apply(JSONPatch, []byte(`{}`), []byte("["+strings.TrimSuffix(ops, ",")+"]"), "")
		require.ErrorIs(t, err, ErrTooLarge)
		assert.Contains(t, err.Error(), "operations")
	})
	t.Run("exactly the operation limit", func(t *testing.T) {
		ops := strings.Repeat(`{"op":"test","path":"","value":{}},`, MaxOperations)
		_, err := Apply(JSONPatch, []byte(`{}`), []byte("["+strings.TrimSuffix(ops, ",")+"]"), "")
		require.NoError(t, err)
	})
	t.Run("doubling copies", func(t *testing.T) {
		// Each copy doubles the document: 60 of them would need 2^60 times
		// the memory. The copy budget stops it early.
		var b strings.Builder
		b.WriteString(`[{"op":"add","path":"/a","value":["xxxxxxxxxxxxxxxx"]}`)
		for i := 0; i < 60; i++ {
			b.WriteString(`,{"op":"copy","from":"/a","path":"/a/-"}`)
		}
		b.WriteString("]")
		_, err := Apply(JSONPatch, []byte(`{}`), []byte(b.String()), "")
		require.ErrorIs(t, err, ErrTooLarge)
		var opErr *OperationError
		require.ErrorAs(t, err, &opErr)
		assert.Greater(t, opErr.Index, 10)
	})
	t.Run("many small copies fit", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`[{"op":"add","path":"/a","value":{"k":"v"}}`)
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, `,{"op":"copy","from":"/a","path":"/c%d"}`, i)
		}
		b.WriteString("]")
		out, err := Apply(JSONPatch, []byte(`{}`), []byte(b.String()), "")
		require.NoError(t, err)
		assert.Contains(t, string(out), `"c99":{"k":"v"}`)
	})
	t.Run("front inserts into a long array", func(t *testing.T) {
		// 100000 elements shifted by each insert: the shift budget stops
		// the patch after a few hundred of its 10000 operations.
		doc := `{"a":[` + strings.TrimSuffix(strings.Repeat("1,", 100000), ",") + `]}`
		ops := strings.Repeat(`{"op":"add","path":"/a/0","value":0},`, MaxOperations)
		_, err := Apply(JSONPatch, []byte(doc), []byte("["+strings.TrimSuffix(ops, ",")+"]"), "")
		require.ErrorIs(t, err, ErrTooLarge)
		var opErr *OperationError
		require.ErrorAs(t, err, &opErr)
		// Insert k shifts 100000+k elements.
		assert.InDelta(t, MaxArrayShifts/100000, opErr.Index, 10)
	})
	t.Run("appends shift nothing", func(t *testing.T) {
		doc := `{"a":[` + strings.TrimSuffix(strings.Repeat("1,", 100000), ",") + `]}`
		ops := strings.Repeat(`{"op":"add","path":"/a/-","value":0},`, MaxOperations)
		_, err := Apply(JSONPatch, []byte(doc), []byte("["+strings.TrimSuffix(ops, ",")+"]"), "")
		require.NoError(t, err)
	})
	t.Run("result over the document limit", func(t *testing.T) {
		big := strings.Repeat("x", MaxDocumentSize/2)
		patch := fmt.Sprintf(`[{"op":"add","path":"/a","value":%q},{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]`, big)
		_, err := Apply(JSONPatch, []byte(`{}`), []byte(patch), "")
		require.ErrorIs(t, err, ErrTooLarge)
	})
}

func TestParsePointer(t *testing.T) {
	tests := []struct {
		in      string
		want    pointer
		wantErr bool
	}{
		{"", pointer{}, false},
		{"/", pointer{""}, false},
		{"/a/b", pointer{"a", "b"}, false},
		{"/a~1b/c~0d", pointer{"a/b", "c~d"}, false},
		{"/~01", pointer{"~1"}, false},
		{"//", pointer{"", ""}, false},
		{"a", nil, true},
		{"/~", nil, true},
		{"/~x", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parsePointer(tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

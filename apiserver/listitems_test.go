package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListItemsCarryNoTypeMeta: the items of a list carry no kind and
// apiVersion (the list says them once), as kube-apiserver writes lists.
// client-go's watch-list consistency check compares listed items with
// watched ones, which its decoder strips of both.
func TestListItemsCarryNoTypeMeta(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.createConfigMap(t, "default", "a", map[string]string{"k": "v"})
	for _, q := range []string{"?resourceVersion=0", "", "?limit=1", "?labelSelector=x%21%3Dy"} {
		t.Run(q, func(t *testing.T) {
			code, body := ts.do(t, "GET", cmPath+q, "", nil)
			require.Equal(t, http.StatusOK, code, string(body))
			var list struct {
				Kind       string           `json:"kind"`
				APIVersion string           `json:"apiVersion"`
				Items      []map[string]any `json:"items"`
			}
			require.NoError(t, json.Unmarshal(body, &list))
			assert.Equal(t, "ConfigMapList", list.Kind)
			assert.Equal(t, "v1", list.APIVersion)
			require.Len(t, list.Items, 1)
			assert.NotContains(t, list.Items[0], "kind")
			assert.NotContains(t, list.Items[0], "apiVersion")
			assert.Equal(t, map[string]any{"k": "v"}, list.Items[0]["data"])
			assert.Equal(t, "a", list.Items[0]["metadata"].(map[string]any)["name"])
		})
	}
}

// TestWriteListItem: only leading kind and apiVersion members go.
func TestWriteListItem(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"spec":{}}`, `{"metadata":{"name":"a"},"spec":{}}`},
		{`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{}}`, `{"metadata":{}}`},
		{`{"metadata":{"name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{`{"kind":"Pod","metadata":{}}`, `{"metadata":{}}`},
		{`{"kind":"P\"od","apiVersion":"v1","metadata":{}}`, `{"kind":"P\"od","apiVersion":"v1","metadata":{}}`},
		{`{"kind":"Pod","apiVersion":"v1","x":{"metadata":{}},"metadata":{}}`, `{"kind":"Pod","apiVersion":"v1","x":{"metadata":{}},"metadata":{}}`},
		{`{"kind":"Pod","apiVersion":"v1"}`, `{"kind":"Pod","apiVersion":"v1"}`},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		writeListItem(&buf, []byte(tt.in))
		assert.Equal(t, tt.want, buf.String(), tt.in)
	}
}

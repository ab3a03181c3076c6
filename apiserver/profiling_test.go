package apiserver

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfiling: /debug/pprof/ serves Go's profiles to an administrator,
// 403 to an authenticated user without a rule for it and 401 to anonymous.
func TestProfiling(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name, path string
		client     *http.Client
		code       int
		body       string
	}{
		{"index", "/debug/pprof/", nil, http.StatusOK, "goroutine"},
		{"heap", "/debug/pprof/heap?debug=1", nil, http.StatusOK, "heap profile"},
		{"goroutines", "/debug/pprof/goroutine?debug=1", nil, http.StatusOK, "goroutine profile"},
		{"unknown profile", "/debug/pprof/nosuch", nil, http.StatusNotFound, "Unknown profile"},
		{"user without a rule", "/debug/pprof/heap", ts.clientAs(t, "jane"), http.StatusForbidden, ""},
		{"anonymous", "/debug/pprof/heap", ts.anon, http.StatusUnauthorized, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.client == nil {
				code, body := ts.do(t, "GET", tt.path, "", nil)
				assert.Equal(t, tt.code, code)
				assert.Contains(t, string(body), tt.body)
				return
			}
			resp, err := tt.client.Get(ts.url + tt.path)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, tt.code, resp.StatusCode)
		})
	}
}

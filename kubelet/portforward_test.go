package kubelet

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParsePortForwardHeaders(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	tests := []struct {
		name     string
		h        http.Header
		wantTyp  string
		wantPort int32
		wantErr  string
	}{
		{"data", h("streamType", "data", "port", "8080", "requestID", "0"), "data", 8080, ""},
		{"error", h("streamtype", "error", "port", "1", "requestid", "7"), "error", 1, ""},
		{"bad type", h("streamType", "resize", "port", "80", "requestID", "0"), "", 0, `invalid stream type "resize"`},
		{"no port", h("streamType", "data", "requestID", "0"), "", 0, `"port" header is required`},
		{"port zero", h("streamType", "data", "port", "0", "requestID", "0"), "", 0, `unable to parse "0" as a port`},
		{"port too big", h("streamType", "data", "port", "65536", "requestID", "0"), "", 0, `unable to parse "65536" as a port`},
		{"port not a number", h("streamType", "data", "port", "http", "requestID", "0"), "", 0, `unable to parse "http" as a port`},
		{"no request ID", h("streamType", "data", "port", "80"), "", 0, `"requestID" header is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, port, _, err := parsePortForwardHeaders(tt.h)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.wantTyp, typ)
			assert.Equal(t, tt.wantPort, port)
		})
	}
}

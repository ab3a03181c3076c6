package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitProxyName(t *testing.T) {
	tests := []struct {
		id                 string
		scheme, name, port string
		wantErr            bool
	}{
		{id: "web", name: "web"},
		{id: "web:80", name: "web", port: "80"},
		{id: "web:http", name: "web", port: "http"},
		{id: "https:web:8443", scheme: "https", name: "web", port: "8443"},
		{id: "http:web:", scheme: "http", name: "web"},
		{id: ":80", wantErr: true},
		{id: "ftp:web:21", wantErr: true},
		{id: "a:b:c:d", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			scheme, name, port, err := splitProxyName(tt.id)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{tt.scheme, tt.name, tt.port}, []string{scheme, name, port})
		})
	}
}

func TestSplitProxyPath(t *testing.T) {
	tests := []struct {
		path, id, prefix, rest string
	}{
		{"/api/v1/namespaces/web/services/web:80/proxy", "web:80", "/api/v1/namespaces/web/services/web:80/proxy", ""},
		{"/api/v1/namespaces/web/services/web:80/proxy/", "web:80", "/api/v1/namespaces/web/services/web:80/proxy", "/"},
		{"/api/v1/namespaces/web/pods/web/proxy/a/b/", "web", "/api/v1/namespaces/web/pods/web/proxy", "/a/b/"},
		{"/api/v1/nodes/n1/proxy/logs/", "n1", "/api/v1/nodes/n1/proxy", "/logs/"},
		{"/elsewhere", "web", "/elsewhere", "/"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			prefix, rest := splitProxyPath(tt.path, tt.id)
			assert.Equal(t, tt.prefix, prefix)
			assert.Equal(t, tt.rest, rest)
		})
	}
}

func TestProxyableIP(t *testing.T) {
	for ip, ok := range map[string]bool{"10.244.0.5": true, "fd00::1": true, "127.0.0.1": false, "::1": false,
		"169.254.169.254": false, "fe80::1": false, "": false, "web": false} {
		assert.Equal(t, ok, proxyableIP(ip) == nil, ip)
	}
}

func FuzzSplitProxyName(f *testing.F) {
	for _, s := range []string{"web", "web:80", "https:web:8443", "a:b:c:d", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		scheme, name, _, err := splitProxyName(id)
		if err == nil && (name == "" || (scheme != "" && scheme != "http" && scheme != "https")) {
			t.Fatalf("accepted %q", id)
		}
		_, _ = splitProxyPath("/api/v1/namespaces/x/pods/"+id+"/proxy/y", id)
	})
}

package apiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/authn"
)

// TestSetRemoteUser: the proxied request carries the authenticated user
// in the front-proxy headers and nothing the client sent to claim an
// identity (credentials, impersonation, its own X-Remote-* headers).
func TestSetRemoteUser(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer secret")
	h.Set("Impersonate-User", "root")
	h.Set("Impersonate-Extra-Scopes", "all")
	h.Set("X-Remote-User", "mallory")
	h.Add("X-Remote-Group", "system:masters")
	h["x-remote-extra-scopes"] = []string{"all"} // not canonical, still removed
	h.Set("Accept", "application/json")
	setRemoteUser(h, &authn.User{Name: "alice", Groups: []string{"dev", authn.GroupAuthenticated},
		Extra: map[string][]string{"authentication.kubernetes.io/pod-name": {"p1"}}})
	assert.Equal(t, http.Header{
		"Accept":         {"application/json"},
		"X-Remote-User":  {"alice"},
		"X-Remote-Group": {"dev", authn.GroupAuthenticated},
		"X-Remote-Extra-Authentication.kubernetes.io%2fpod-Name": {"p1"},
	}, h)
}

// TestSelectedName: list and watch are authorized for the object a
// metadata.name field selector names, as kube-apiserver's request info
// reads it; anything else names no object.
func TestSelectedName(t *testing.T) {
	tests := []struct{ sel, want string }{
		{"", ""},
		{"metadata.name=extension-apiserver-authentication", "extension-apiserver-authentication"},
		{"metadata.name==cm", "cm"},
		{"metadata.namespace=kube-system,metadata.name=cm", "cm"},
		{"metadata.name!=cm", ""},
		{"spec.nodeName=n1", ""},
		{"metadata.name=a/b", ""},
		{"metadata.name=..", ""},
		{"metadata.name=%2e", ""},
		{"metadata.name", ""}, // malformed
		{"metadata.name=", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			assert.Equal(t, tt.want, selectedName(tt.sel))
		})
	}
}

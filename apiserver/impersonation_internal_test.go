package apiserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/authz"
)

// selfReviews lets anyone create SelfSubjectReviews (masters do the rest).
type selfReviews struct{}

func (selfReviews) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	if a.Resource == "selfsubjectreviews" && a.Verb == "create" {
		return authz.DecisionAllow, "", nil
	}
	return authz.DecisionNoOpinion, "", nil
}

func TestImpersonationHeaders(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Authorizer = StaticAuthorizer(authz.Chain(authz.Masters(), selfReviews{})) })
	review := func(headers map[string][]string) (int, string) {
		req, err := http.NewRequest("POST", ts.url+"/apis/authentication.k8s.io/v1/selfsubjectreviews",
			strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for k, vs := range headers {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		resp, err := ts.http.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name    string
		headers map[string][]string
		code    int
		want    map[string]any // fields of status.userInfo
		msg     string
	}{
		{"no impersonation", nil, http.StatusCreated, map[string]any{"username": "admin"}, ""},
		{"user, groups, uid and extra", map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {"a", "b"},
			"Impersonate-Uid": {"42"}, "Impersonate-Extra-Scopes%2Fx": {"read", "write"}}, http.StatusCreated,
			map[string]any{"username": "bob", "uid": "42", "groups": []any{"a", "b", "system:authenticated"},
				"extra": map[string]any{"scopes/x": []any{"read", "write"}}}, ""},
		{"a service account gets its groups", map[string][]string{"Impersonate-User": {"system:serviceaccount:ns:robot"}}, http.StatusCreated,
			map[string]any{"username": "system:serviceaccount:ns:robot", "groups": []any{"system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"}}, ""},
		{"groups without a user", map[string][]string{"Impersonate-Group": {"a"}}, http.StatusBadRequest, nil, "without impersonating a user"},
		{"bad extra key", map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Extra-%zz": {"v"}}, http.StatusBadRequest, nil, "invalid impersonation extra key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := review(tc.headers)
			require.Equal(t, tc.code, code, body)
			if tc.msg != "" {
				assert.Contains(t, body, tc.msg)
				return
			}
			var out struct {
				Status struct {
					UserInfo map[string]any `json:"userInfo"`
				} `json:"status"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &out))
			for k, v := range tc.want {
				assert.Equal(t, v, out.Status.UserInfo[k], k)
			}
		})
	}
}

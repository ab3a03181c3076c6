package authentication

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

func TestJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		obj  any
		doc  string
	}{
		{"token review", &TokenReview{}, `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},"spec":{"token":"abc","audiences":["api"]},"status":{"authenticated":true,"user":{"username":"system:serviceaccount:default:sa","uid":"u-1","groups":["system:serviceaccounts","system:authenticated"],"extra":{"authentication.kubernetes.io/pod-name":["p"]}},"audiences":["api"]}}`},
		{"token review failed", &TokenReview{}, `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},"spec":{"token":"abc"},"status":{"user":{},"error":"invalid bearer token"}}`},
		{"whoami", &SelfSubjectReview{}, `{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":"2024-05-01T10:00:00Z"},"status":{"userInfo":{"username":"kubernetes-admin","groups":["kubeadm:cluster-admins","system:authenticated"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, json.Unmarshal([]byte(tt.doc), tt.obj))
			out, err := json.Marshal(tt.obj)
			require.NoError(t, err)
			assert.JSONEq(t, tt.doc, string(out))
		})
	}
}

func TestValidateTokenReview(t *testing.T) {
	assert.Empty(t, ValidateTokenReview(&TokenReview{Spec: TokenReviewSpec{Token: "t"}}))
	errs := ValidateTokenReview(&TokenReview{})
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.token: Required value", errs[0].Error())
}

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	for _, r := range []string{"tokenreviews", "selfsubjectreviews"} {
		typ, ok := s.ByResource(meta.GroupVersionResource{Group: GroupName, Version: Version, Resource: r})
		require.True(t, ok, r)
		assert.False(t, typ.Namespaced)
	}
}

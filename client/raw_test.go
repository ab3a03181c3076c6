package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
)

func TestGetRaw(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/nodes/n1/proxy/stats/summary" && r.URL.Query().Get("only") == "cpu" {
			_, _ = w.Write([]byte(`{"node":{}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
	}))
	defer srv.Close()
	c, err := client.New(&client.Config{Host: srv.URL})
	require.NoError(t, err)
	ctx := context.Background()
	b, err := c.GetRaw(ctx, "/api/v1/nodes/n1/proxy/stats/summary", map[string][]string{"only": {"cpu"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"node":{}}`, string(b))
	_, err = c.GetRaw(ctx, "/nowhere", nil)
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	for _, bad := range []string{"relative", "/api/../etc", "/a?b=c", "/.."} {
		_, err = c.GetRaw(ctx, bad, nil)
		assert.ErrorIs(t, err, client.ErrRequest, bad)
	}
}

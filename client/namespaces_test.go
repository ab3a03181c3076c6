package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

func TestFinalizeNamespace(t *testing.T) {
	var method, path string
	var sent core.Namespace
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		method, path = r.Method, r.URL.Path
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &sent)
		if sent.Name == "gone" {
			writeStatus(w, apierrors.NewNotFound(meta.GroupResource{Resource: "namespaces"}, "gone"))
			return
		}
		writeObject(w, http.StatusOK, &sent)
	})
	c, _ := newTestClient(t, srv.URL)
	ns := &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "team", ResourceVersion: "7"}}
	got, err := c.FinalizeNamespace(context.Background(), ns)
	require.NoError(t, err)
	assert.Equal(t, []string{http.MethodPut, "/api/v1/namespaces/team/finalize"}, []string{method, path})
	assert.Equal(t, "7", sent.ResourceVersion, "conditional on the version given")
	assert.Equal(t, "team", got.Name)

	_, err = c.FinalizeNamespace(context.Background(), &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "gone"}})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	_, err = c.FinalizeNamespace(context.Background(), &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "../x"}})
	assert.Error(t, err, "a name that would address another path")
}

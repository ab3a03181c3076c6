package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
)

// TestStorageErrorsLeakNoInternals feeds apiError every store sentinel
// wrapped as a backend wraps it (with the key, revisions, a file) and
// checks the Status: kube-apiserver's code and wording, and none of the
// backend's text; the unexpected ones reach the log in full.
func TestStorageErrorsLeakNoInternals(t *testing.T) {
	typ, ok := api.NewScheme().ByResource(meta.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	require.True(t, ok)
	var logBuf bytes.Buffer
	st := NewStorage(typ, nil)
	st.log = slog.New(slog.NewTextHandler(&logBuf, nil))
	const key = "/registry/configmaps/default/cfg"
	wrap := func(err error) error {
		return fmt.Errorf("get %q at revision 42 of /var/lib/orkit/store.db: %w", key, err)
	}
	tests := []struct {
		err     error
		code    int32
		message string
		logged  bool
	}{
		{wrap(store.ErrNotFound), http.StatusNotFound, `configmaps "cfg" not found`, false},
		{wrap(store.ErrInvalidKey), http.StatusNotFound, `configmaps "cfg" not found`, false},
		{wrap(store.ErrAlreadyExists), http.StatusConflict, `configmaps "cfg" already exists`, false},
		{wrap(store.ErrConflict), http.StatusConflict, `Operation cannot be fulfilled on configmaps "cfg": the object has been modified; please apply your changes to the latest version and try again`, false},
		{wrap(store.ErrTooOld), http.StatusGone, "The resourceVersion for the provided list is too old.", false},
		{wrap(store.ErrInvalidContinue), http.StatusBadRequest, "the provided continue parameter is not valid", false},
		{wrap(store.ErrTooLarge), http.StatusRequestEntityTooLarge, `configmaps "cfg" is too large to store`, false},
		{wrap(store.ErrFutureRevision), http.StatusGatewayTimeout, "Too large resource version", false},
		{wrap(context.DeadlineExceeded), http.StatusGatewayTimeout, "request did not complete within requested timeout", false},
		{wrap(store.ErrClosed), http.StatusServiceUnavailable, "the server is shutting down", false},
		{wrap(store.ErrCorrupt), http.StatusInternalServerError, `Internal error occurred: storage failed on configmaps "cfg"`, true},
		{wrap(errors.New("disk on fire")), http.StatusInternalServerError, `Internal error occurred: storage failed on configmaps "cfg"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.err.Error(), func(t *testing.T) {
			logBuf.Reset()
			st := apierrors.FromError(st.apiError(tc.err, "cfg"))
			require.NotNil(t, st)
			assert.Equal(t, tc.code, st.Code)
			assert.Equal(t, tc.message, st.Message)
			if st.Details != nil {
				for _, c := range st.Details.Causes {
					assert.NotContains(t, c.Message, "registry")
				}
			}
			if tc.logged {
				assert.Contains(t, logBuf.String(), key, "the log keeps the backend's text")
			}
		})
	}

	_, err := st.Decode(store.KV{Key: key, Value: []byte(`{"data":`), ModRevision: 3})
	require.ErrorIs(t, err, ErrUndecodable)
	s := apierrors.FromError(st.apiError(err, "cfg"))
	require.NotNil(t, s)
	assert.Equal(t, `Internal error occurred: the stored configmaps "cfg" could not be decoded`, s.Message)
}

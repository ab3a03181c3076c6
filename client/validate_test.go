package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// TestValidationFailsFast: an invalid object is refused before any request
// is sent; with validation off the same object reaches the server.
func TestValidationFailsFast(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 201, configMap("a")) })
	ctx := context.Background()
	bad := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "Bad_Name", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"bad key!": "v"}}
	before := meta.DeepCopy(bad)

	c, _ := newTestClient(t, srv.URL)
	cms := For[core.ConfigMap](c, "default")
	tests := []struct {
		name string
		call func() error
	}{
		{"create", func() error { _, err := cms.Create(ctx, bad); return err }},
		{"update", func() error { _, err := cms.Update(ctx, bad); return err }},
		{"dynamic create of a registered kind", func() error {
			u := &Unstructured{ObjectMeta: meta.ObjectMeta{Name: "ok"}, Content: map[string]any{"data": map[string]any{"bad key!": "v"}}}
			_, err := DynamicFor(c, Mapping{Resource: meta.GroupVersionResource{Version: "v1", Resource: "configmaps"},
				Kind: meta.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespaced: true}, "default").Create(ctx, u)
			return err
		}},
		{"binding without target", func() error {
			return c.Bind(ctx, &core.Binding{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "default"}})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var verr *ValidationError
			require.True(t, errors.As(err, &verr), "%v", err)
			assert.True(t, apierrors.IsInvalid(err))
			assert.Equal(t, int64(0), srv.n.Load(), "no request reached the server")
		})
	}
	err := func() error { _, err := cms.Create(ctx, bad); return err }()
	assert.Equal(t, `POST /api/v1/namespaces/default/configmaps: ConfigMap "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), data[bad key!]: Invalid value: "bad key!": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')]`, err.Error())
	assert.Equal(t, before, bad, "validation does not modify the object")

	off, _ := newTestClient(t, srv.URL, WithoutValidation())
	_, err = For[core.ConfigMap](off, "default").Create(ctx, bad)
	require.NoError(t, err)
	assert.Equal(t, int64(1), srv.n.Load())
}

// TestValidationNoFalsePositives: objects the server accepts pass: the
// copy is defaulted, named from generateName and namespaced from the
// request first, as the server does.
func TestValidationNoFalsePositives(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 201, configMap("a")) })
	c, _ := newTestClient(t, srv.URL)
	ctx := context.Background()
	pod := &core.Pod{
		ObjectMeta: meta.ObjectMeta{GenerateName: "web-"},
		Spec:       core.PodSpec{Containers: []core.Container{{Name: "c", Image: "img"}}},
		Status:     core.PodStatus{Phase: "NotAPhase"}, // cleared by the server: status is a subresource
	}
	_, err := For[core.Pod](c, "default").Create(ctx, pod)
	require.NoError(t, err)
	assert.Empty(t, pod.Spec.RestartPolicy, "defaults go to a copy")
	assert.Empty(t, pod.Namespace)
	_, err = For[core.Namespace](c, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "ns1"}})
	require.NoError(t, err)
	assert.Equal(t, int64(2), srv.n.Load())
}

func TestValidationMalformedUnstructured(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 201, configMap("a")) })
	c, _ := newTestClient(t, srv.URL)
	u := &Unstructured{ObjectMeta: meta.ObjectMeta{Name: "ok"}, Content: map[string]any{"data": 7}}
	_, err := DynamicFor(c, Mapping{Resource: meta.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Kind: meta.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespaced: true}, "default").Create(context.Background(), u)
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)
	assert.Contains(t, err.Error(), "the object provided is unrecognized or malformed")
	assert.Equal(t, int64(0), srv.n.Load())

	// An unknown kind is the server's to validate.
	_, err = DynamicFor(c, Mapping{Resource: meta.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "widgets"},
		Kind: meta.GroupVersionKind{Group: "x.io", Version: "v1", Kind: "Widget"}}, "").Create(context.Background(), u)
	require.NoError(t, err)
	assert.Equal(t, int64(1), srv.n.Load())
}

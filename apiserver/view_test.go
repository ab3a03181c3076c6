package apiserver

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// setting is a user-defined view of ConfigMaps: data["value"] as .value.
type setting struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Value           string `json:"value"`
}

var settingType = &scheme.Type{
	Kind: meta.GroupVersionKind{Group: "example.orkit.io", Version: "v1", Kind: "Setting"}, Resource: "settings", Namespaced: true,
	New:     func() meta.Object { return &setting{} },
	NewList: func() meta.ListObject { return &meta.List[setting]{} },
}

func settingView(stored *scheme.Type) *View {
	return &View{
		Stored: stored,
		FromStored: func(in meta.Object) (meta.Object, error) {
			cm := in.(*core.ConfigMap)
			if cm.Data["broken"] != "" {
				return nil, errors.New("cannot read")
			}
			return &setting{ObjectMeta: cm.ObjectMeta, Value: cm.Data["value"]}, nil
		},
		ToStored: func(in meta.Object) (meta.Object, error) {
			s := in.(*setting)
			if s.Value == "refuse" {
				return nil, errors.New("cannot write")
			}
			return &core.ConfigMap{ObjectMeta: s.ObjectMeta, Data: map[string]string{"value": s.Value}}, nil
		},
	}
}

// TestRegisterView: an embedder's own view registered while serving
// reads and writes the stored kind; a View missing its conversions is
// refused at registration; an object that does not convert on write is
// a 422 and stores nothing, a stored value that does not convert on read
// a 500 naming only the object.
func TestRegisterView(t *testing.T) {
	ts := newTestServer(t, nil)
	cms, ok := ts.srv.lookup(coreGVR("configmaps"))
	require.True(t, ok)
	for _, v := range []*View{{}, {Stored: cms.Type}, {Stored: cms.Type, FromStored: settingView(cms.Type).FromStored}} {
		assert.Error(t, ts.srv.Register(Resource{Type: settingType, View: v}))
	}
	require.NoError(t, ts.srv.Register(Resource{Type: settingType, View: settingView(cms.Type)}))
	const path = "/apis/example.orkit.io/v1/namespaces/default/settings"

	ts.createConfigMap(t, "default", "color", map[string]string{"value": "blue"})
	code, out := ts.do(t, "GET", path+"/color", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	assert.Contains(t, string(out), `"value":"blue"`)
	assert.Contains(t, string(out), `"apiVersion":"example.orkit.io/v1"`)

	code, out = ts.do(t, "POST", path, "application/json", []byte(`{"metadata":{"name":"size"},"value":"xl"}`))
	require.Equal(t, http.StatusCreated, code, string(out))
	code, out = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps/size", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"data":{"value":"xl"}`)

	code, out = ts.do(t, "POST", path, "application/json", []byte(`{"metadata":{"name":"no"},"value":"refuse"}`))
	assert.Equal(t, http.StatusUnprocessableEntity, code, string(out))
	assert.Contains(t, string(out), `apiVersion: Invalid value: \"example.orkit.io/v1\": cannot be stored as v1: cannot write`)
	code, _ = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps/no", "", nil)
	assert.Equal(t, http.StatusNotFound, code)

	ts.createConfigMap(t, "default", "bad", map[string]string{"broken": "1"})
	code, out = ts.do(t, "GET", path+"/bad", "", nil)
	assert.Equal(t, http.StatusInternalServerError, code, string(out))
	assert.Contains(t, string(out), `the stored settings.example.orkit.io \"bad\" could not be decoded`)
}

package statefulset

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
)

func TestTemplateOf(t *testing.T) {
	var d revisionData
	d.Spec.Template = webSet("ns", 1, "").Spec.Template
	data, err := json.Marshal(d)
	require.NoError(t, err)
	got, err := templateOf(&apps.ControllerRevision{ObjectMeta: meta.ObjectMeta{Name: "r"}, Data: data})
	require.NoError(t, err)
	assert.Equal(t, d.Spec.Template.Spec.Containers, got.Spec.Containers)
	for _, bad := range []string{`[]`, `{"spec":7}`, `not json`, ``} {
		_, err := templateOf(&apps.ControllerRevision{ObjectMeta: meta.ObjectMeta{Name: "r"}, Data: []byte(bad)})
		assert.ErrorIs(t, err, ErrBadRevision, "data %q", bad)
	}
}

// FuzzTemplateOf: any revision data decodes or fails with ErrBadRevision.
func FuzzTemplateOf(f *testing.F) {
	for _, s := range []string{`{"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`, `{}`, `[]`, `{"spec":{"template":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tmpl, err := templateOf(&apps.ControllerRevision{Data: data})
		if err != nil && !errors.Is(err, ErrBadRevision) {
			t.Fatalf("error %v does not wrap ErrBadRevision", err)
		}
		if err == nil && tmpl == nil {
			t.Fatal("nil template without an error")
		}
	})
}

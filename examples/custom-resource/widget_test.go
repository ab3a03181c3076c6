package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func widget(name string, size int32) *Widget {
	return &Widget{TypeMeta: meta.TypeMeta{APIVersion: "example.orkit.io/v1", Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", UID: "uid-1", Generation: 2},
		Spec:       WidgetSpec{Size: size}}
}

func TestValidateWidget(t *testing.T) {
	tests := []struct {
		name      string
		w         *Widget
		wantField string // "" for valid
	}{
		{name: "valid", w: widget("w1", 3)},
		{name: "smallest", w: widget("w1", MinSize)},
		{name: "largest", w: widget("w1", MaxSize)},
		{name: "size 0", w: widget("w1", 0), wantField: "spec.size"},
		{name: "too big", w: widget("w1", MaxSize+1), wantField: "spec.size"},
		{name: "negative", w: widget("w1", -3), wantField: "spec.size"},
		{name: "name not a DNS label", w: widget("w.1", 3), wantField: "metadata.name"},
		{name: "name too long", w: widget(strings.Repeat("w", 64), 3), wantField: "metadata.name"},
		{name: "no namespace", w: func() *Widget { w := widget("w1", 3); w.Namespace = ""; return w }(), wantField: "metadata.namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateWidget(tt.w)
			if tt.wantField == "" {
				assert.Empty(t, errs)
				return
			}
			require.NotEmpty(t, errs)
			assert.Equal(t, tt.wantField, errs[0].Field, "%v", errs)
		})
	}
}

func TestValidateWidgetUpdate(t *testing.T) {
	old := widget("w1", 3)
	bigger := widget("w1", 5)
	assert.Empty(t, ValidateWidgetUpdate(bigger, old))
	bad := widget("w1", 500)
	errs := ValidateWidgetUpdate(bad, old)
	require.Len(t, errs, 1)
	assert.Equal(t, field.ErrorTypeInvalid, errs[0].Type)
	moved := widget("w1", 3)
	moved.Namespace = "other"
	assert.NotEmpty(t, ValidateWidgetUpdate(moved, old), "namespace is immutable")
}

func TestDefaultWidget(t *testing.T) {
	w := widget("w1", 0)
	DefaultWidget(w)
	assert.EqualValues(t, 1, w.Spec.Size)
	w = widget("w1", 7)
	DefaultWidget(w)
	assert.EqualValues(t, 7, w.Spec.Size)
}

func TestWidgetTable(t *testing.T) {
	res := WidgetResource()
	w := widget("w1", 3)
	w.Status.Ready = true
	tbl := res.Table.Convert([]meta.Object{w}, "10", "", "None")
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	assert.Equal(t, []string{"Name", "Size", "Ready", "Age"}, cols)
	require.Len(t, tbl.Rows, 1)
	assert.Equal(t, "w1", tbl.Rows[0].Cells[0])
	assert.Equal(t, []any{int64(3), true}, tbl.Rows[0].Cells[1:3])
}

func TestWidgetInScheme(t *testing.T) {
	sch := api.NewScheme()
	require.NoError(t, sch.Register(*WidgetType()))
	typ, ok := sch.ByResource(GroupVersion.WithResource("widgets"))
	require.True(t, ok)
	assert.Equal(t, []string{"wd"}, typ.ShortNames)
	assert.True(t, typ.Namespaced)
	obj, _, err := sch.Decode([]byte(`{"apiVersion":"example.orkit.io/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":4}}`))
	require.NoError(t, err)
	assert.EqualValues(t, 4, obj.(*Widget).Spec.Size)
	assert.Error(t, sch.Register(*WidgetType()), "registered twice")
}

func TestDesiredConfigMap(t *testing.T) {
	cm := desiredConfigMap(widget("w1", 3))
	assert.Equal(t, "w1-widget", cm.Name)
	assert.Equal(t, "default", cm.Namespace)
	assert.Equal(t, map[string]string{"size": "3"}, cm.Data)
	ref := meta.ControllerOf(&cm.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, meta.OwnerReference{APIVersion: "example.orkit.io/v1", Kind: "Widget", Name: "w1", UID: "uid-1",
		Controller: ref.Controller, BlockOwnerDeletion: ref.BlockOwnerDeletion}, *ref)
	assert.True(t, *ref.BlockOwnerDeletion)
}

// FuzzDecodeWidget feeds arbitrary bytes through the scheme's decoder, as
// the API server's body does: decoding fails cleanly or yields a widget
// that defaulting and validation handle without panicking, and a widget
// that validates has a size in range.
func FuzzDecodeWidget(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"example.orkit.io/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},"spec":{"size":4}}`,
		`{"apiVersion":"example.orkit.io/v1","kind":"Widget","spec":{"size":-1}}`,
		`{"apiVersion":"example.orkit.io/v1","kind":"Widget","spec":{"size":"big"}}`,
		`{"apiVersion":"example.orkit.io/v1","kind":"Widget","status":{"ready":true}}`,
		`{"kind":"Widget"}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	sch := api.NewScheme()
	require.NoError(f, sch.Register(*WidgetType()))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, typ, err := sch.Decode(data)
		if err != nil {
			return
		}
		w, ok := obj.(*Widget)
		if !ok {
			return // another kind of the scheme
		}
		typ.Default(w)
		if len(typ.Validate(w)) == 0 {
			require.True(t, w.Spec.Size >= MinSize && w.Spec.Size <= MaxSize, "size %d", w.Spec.Size)
		}
		_ = WidgetResource().Table.Cells(w)
	})
}

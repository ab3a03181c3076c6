package main

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/api/validation"
	"github.com/orkit/orkit/apiserver"
)

// GroupVersion is the API group and version of Widget.
var GroupVersion = meta.GroupVersion{Group: "example.orkit.io", Version: "v1"}

// The limits of spec.size.
const (
	MinSize = 1
	MaxSize = 100
)

// Widget is the user-defined kind: a namespaced object with a desired
// size, whose controller keeps a ConfigMap for it and reports readiness.
type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            WidgetSpec   `json:"spec"`
	Status          WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what the user asks for.
type WidgetSpec struct {
	// Size is how big the widget is, MinSize to MaxSize; default 1.
	Size int32 `json:"size,omitempty"`
}

// WidgetStatus is what the controller reports; only the status
// subresource writes it.
type WidgetStatus struct {
	// Ready is true when the widget's ConfigMap matches its spec.
	Ready bool `json:"ready"`
	// ConfigMap names the ConfigMap that holds the widget's settings.
	ConfigMap string `json:"configMap,omitempty"`
	// ObservedGeneration is the metadata.generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Message says why the widget is not ready.
	Message string `json:"message,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList = meta.List[Widget]

// WidgetType describes Widget to schemes: the API server's resource and
// the clients' mapping from the Go type to the REST path use the same
// description.
func WidgetType() *scheme.Type {
	return &scheme.Type{
		Kind: GroupVersion.WithKind("Widget"), Resource: "widgets", Singular: "widget",
		Namespaced: true, ShortNames: []string{"wd"}, Subresources: []string{"status"},
		New:            func() meta.Object { return &Widget{} },
		NewList:        func() meta.ListObject { return &WidgetList{} },
		Default:        func(o meta.Object) { DefaultWidget(o.(*Widget)) },
		Validate:       func(o meta.Object) field.ErrorList { return ValidateWidget(o.(*Widget)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList { return ValidateWidgetUpdate(o.(*Widget), old.(*Widget)) },
	}
}

// WidgetResource is how the API server serves widgets: the default
// strategy (status only through the status subresource, generation bumped
// on spec changes) and a table with SIZE and READY.
func WidgetResource() apiserver.Resource {
	return apiserver.Resource{Type: WidgetType(), Table: &apiserver.TableConvertor{
		Columns: []apiserver.TableColumn{
			{Name: "Size", Type: "integer", Description: "spec.size: how big the widget is."},
			{Name: "Ready", Type: "boolean", Description: "status.ready: the widget's ConfigMap matches its spec."},
		},
		Cells: func(o meta.Object) []any {
			w := o.(*Widget)
			return []any{int64(w.Spec.Size), w.Status.Ready}
		},
	}}
}

// DefaultWidget sets spec.size to 1 when unset.
func DefaultWidget(w *Widget) {
	if w.Spec.Size == 0 {
		w.Spec.Size = 1
	}
}

// ValidateWidget checks a new widget: its name is a DNS label (the
// ConfigMap's name is derived from it) and its size is in range.
func ValidateWidget(w *Widget) field.ErrorList {
	errs := validation.ValidateObjectMeta(&w.ObjectMeta, true, validation.NameIsDNSLabel, field.NewPath("metadata"))
	return append(errs, validateSpec(&w.Spec, field.NewPath("spec"))...)
}

// ValidateWidgetUpdate checks w as a replacement of old: the metadata
// rules for updates, and the spec as for a new widget.
func ValidateWidgetUpdate(w, old *Widget) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&w.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateSpec(&w.Spec, field.NewPath("spec"))...)
}

func validateSpec(s *WidgetSpec, p *field.Path) field.ErrorList {
	if s.Size < MinSize || s.Size > MaxSize {
		return field.ErrorList{field.Invalid(p.Child("size"), s.Size, validation.InclusiveRangeError(MinSize, MaxSize))}
	}
	return nil
}

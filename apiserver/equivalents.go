package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/meta"
)

// scaleKind is the kind of every scale subresource (autoscaling/v1 Scale).
var scaleKind = meta.GroupVersionKind{Group: autoscaling.GroupName, Version: "v1", Kind: "Scale"}

// Equivalents is the admission.EquivalentResourceMapper and
// admission.ObjectConverter of a Server, for webhooks with matchPolicy
// Equivalent: the resources served in other versions of the same group
// for the same objects (every served version of a custom resource, whose
// versions share one storage, and autoscaling v1/v2
// HorizontalPodAutoscalers), and the conversions between them (None for
// custom resources: the apiVersion changes; autoscaling's own for HPAs).
// Make one with Server.Equivalents; safe for concurrent use.
type Equivalents struct{ s *Server }

var (
	_ admission.EquivalentResourceMapper = Equivalents{}
	_ admission.ObjectConverter          = Equivalents{}
)

// Equivalents returns the server's equivalent-resource mapper and
// converter.
func (s *Server) Equivalents() Equivalents { return Equivalents{s} }

// EquivalentResources implements admission.EquivalentResourceMapper: gvr
// and the served resources of its group with its name in other versions,
// sorted by version, each with its kind (the scale subresource's is
// autoscaling/v1 Scale; status keeps the resource's kind; other
// subresources have none).
func (e Equivalents) EquivalentResources(gvr meta.GroupVersionResource, subresource string) []admission.EquivalentResource {
	e.s.mu.RLock()
	var found []*served
	for k, r := range e.s.resources {
		if k.Group == gvr.Group && k.Resource == gvr.Resource {
			found = append(found, r)
		}
	}
	e.s.mu.RUnlock()
	if len(found) < 2 {
		return nil
	}
	slices.SortFunc(found, func(a, b *served) int {
		return strings.Compare(a.Type.Kind.Version, b.Type.Kind.Version)
	})
	out := make([]admission.EquivalentResource, 0, len(found))
	for _, r := range found {
		eq := admission.EquivalentResource{Resource: r.Type.GroupVersionResource()}
		switch subresource {
		case "", "status":
			eq.Kind = r.Type.Kind
		case "scale":
			eq.Kind = scaleKind
		}
		out = append(out, eq)
	}
	return out
}

// ConvertObject implements admission.ObjectConverter: a custom resource
// or a Scale gets the target apiVersion (conversion None); a
// HorizontalPodAutoscaler is converted between autoscaling/v2 and v1.
// Anything else is an error.
func (e Equivalents) ConvertObject(_ context.Context, object []byte, to meta.GroupVersionKind) ([]byte, error) {
	var tm meta.TypeMeta
	if err := json.Unmarshal(object, &tm); err != nil {
		return nil, err
	}
	from := tm.GroupVersionKind()
	if from.Group != to.Group || from.Kind != to.Kind {
		return nil, fmt.Errorf("cannot convert %s to %s: another kind", from, to)
	}
	if from == to {
		return object, nil
	}
	switch {
	case to.Group == autoscaling.GroupName && to.Kind == "HorizontalPodAutoscaler":
		return convertHPA(object, to.Version)
	case to == scaleKind || e.isCustom(to):
		var obj map[string]any
		if err := json.Unmarshal(object, &obj); err != nil {
			return nil, err
		}
		obj["apiVersion"] = to.GroupVersion().String()
		return json.Marshal(obj)
	}
	return nil, fmt.Errorf("no conversion from %s to %s", from, to)
}

// isCustom reports whether kind is served by a custom resource.
func (e Equivalents) isCustom(kind meta.GroupVersionKind) bool {
	e.s.mu.RLock()
	defer e.s.mu.RUnlock()
	for _, r := range e.s.resources {
		if r.Type.Kind == kind {
			_, ok := r.Strategy.(customStrategy)
			return ok
		}
	}
	return false
}

// convertHPA converts a HorizontalPodAutoscaler between autoscaling/v2
// and v1 (version: the target).
func convertHPA(object []byte, version string) ([]byte, error) {
	switch version {
	case "v1":
		var h autoscaling.HorizontalPodAutoscaler
		if err := json.Unmarshal(object, &h); err != nil {
			return nil, err
		}
		return json.Marshal(autoscaling.FromV2(&h))
	case autoscaling.VersionV2:
		var h autoscaling.HorizontalPodAutoscalerV1
		if err := json.Unmarshal(object, &h); err != nil {
			return nil, err
		}
		return json.Marshal(h.ToV2())
	}
	return nil, fmt.Errorf("no HorizontalPodAutoscaler version %q", version)
}

// DefaultObject applies the defaults of obj's kind as this server serves
// it, built-in or custom: for a custom resource that is its schema's
// pruning and defaults. The MutatingAdmissionWebhook plugin calls it on
// an object a webhook patched, as kube-apiserver decodes a patched object
// through the kind's codec (so a field a webhook adds outside a custom
// resource's schema is pruned). A kind the server does not serve is left
// as it is.
func (s *Server) DefaultObject(obj meta.Object) {
	gvk := obj.GetTypeMeta().GroupVersionKind()
	s.mu.RLock()
	var def func(meta.Object)
	for _, r := range s.resources {
		if r.Type.Kind == gvk && r.Type.Default != nil {
			def = r.Type.Default
			break
		}
	}
	s.mu.RUnlock()
	if def != nil {
		def(obj)
	}
}

package admission

import (
	"context"
	"fmt"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
)

// DefaultIngressClassName is the name of the DefaultIngressClass plugin.
const DefaultIngressClassName = "DefaultIngressClass"

// ingressesResource is the resource the DefaultIngressClass plugin admits.
var ingressesResource = meta.GroupResource{Group: networking.GroupName, Resource: "ingresses"}

// IngressClassLister lists IngressClasses, usually from a cache. The
// returned objects are shared: the plugin never changes them.
// Implementations must be safe for concurrent use.
type IngressClassLister interface {
	ListIngressClasses(ctx context.Context) ([]*networking.IngressClass, error)
}

// DefaultIngressClass gives a new Ingress that names no class
// (spec.ingressClassName absent and no deprecated
// kubernetes.io/ingress.class annotation) the default IngressClass: the
// one annotated ingressclass.kubernetes.io/is-default-class: "true", the
// newest when several are (then the first by name), as Kubernetes' plugin
// does. With no default class the Ingress is left alone; updates are never
// changed. A DefaultIngressClass holds no state and is safe for concurrent
// use.
type DefaultIngressClass struct {
	Handler
	classes IngressClassLister
}

var _ Mutator = (*DefaultIngressClass)(nil)

// NewDefaultIngressClass returns the plugin reading classes from classes.
func NewDefaultIngressClass(classes IngressClassLister) *DefaultIngressClass {
	return &DefaultIngressClass{Handler: Handler{PluginName: DefaultIngressClassName, Operations: []Operation{Create}}, classes: classes}
}

// Admit sets the default class on a new Ingress that names none.
func (p *DefaultIngressClass) Admit(ctx context.Context, a *Attributes) error {
	if a.Operation != Create || a.Subresource != "" || a.Object == nil || a.Resource.GroupResource() != ingressesResource {
		return nil
	}
	ing, ok := a.Object.(*networking.Ingress)
	if !ok {
		return wrongType(a, "Ingress")
	}
	if _, ok := ing.Annotations[networking.AnnotationIngressClass]; ok {
		return nil
	}
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	list, err := p.classes.ListIngressClasses(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("list ingress classes: %w", err))
	}
	if def := networking.DefaultClass(list); def != nil {
		name := def.Name
		ing.Spec.IngressClassName = &name
	}
	return nil
}

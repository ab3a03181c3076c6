package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/storage"
)

// DefaultStorageClassName is the name of the DefaultStorageClass plugin.
const DefaultStorageClassName = "DefaultStorageClass"

// annBetaStorageClass is the claim annotation that named a class before
// spec.storageClassName existed; a claim carrying it has a class.
const annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"

// StorageClassLister lists StorageClasses, usually from a cache. The
// returned objects are shared: the plugin never changes them.
// Implementations must be safe for concurrent use.
type StorageClassLister interface {
	ListStorageClasses(ctx context.Context) ([]*storage.StorageClass, error)
}

// DefaultStorageClass gives a new PersistentVolumeClaim that names no
// storage class (spec.storageClassName absent; an empty string means "no
// class" and is kept) the default class: the one annotated
// storageclass.kubernetes.io/is-default-class=true, the newest when
// several are (then the first by name), as Kubernetes' plugin does. With
// no default class the claim is left alone. Other requests pass. A
// DefaultStorageClass holds no state and is safe for concurrent use.
type DefaultStorageClass struct {
	Handler
	classes StorageClassLister
}

var _ Mutator = (*DefaultStorageClass)(nil)

// NewDefaultStorageClass returns the plugin reading classes from classes.
func NewDefaultStorageClass(classes StorageClassLister) *DefaultStorageClass {
	return &DefaultStorageClass{Handler: Handler{PluginName: DefaultStorageClassName, Operations: []Operation{Create}}, classes: classes}
}

// Admit sets the default class on a new claim that names none.
func (p *DefaultStorageClass) Admit(ctx context.Context, a *Attributes) error {
	if a.Operation != Create || a.Subresource != "" || a.Object == nil || a.Resource.GroupResource() != pvcsResource {
		return nil
	}
	pvc, ok := a.Object.(*core.PersistentVolumeClaim)
	if !ok {
		return wrongType(a, "PersistentVolumeClaim")
	}
	if pvc.Spec.StorageClassName != nil {
		return nil
	}
	if _, ok := pvc.Annotations[annBetaStorageClass]; ok {
		return nil
	}
	list, err := p.classes.ListStorageClasses(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("list storage classes: %w", err))
	}
	if def := storage.DefaultClass(list); def != nil {
		name := def.Name
		pvc.Spec.StorageClassName = &name
	}
	return nil
}

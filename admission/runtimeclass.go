package admission

import (
	"context"
	"fmt"
	"slices"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/node"
)

// RuntimeClassName is the name of the RuntimeClass plugin.
const RuntimeClassName = "RuntimeClass"

// RuntimeClassGetter reads RuntimeClasses, usually from a cache with a
// fallback to storage. The returned object is shared: the plugin never
// changes it. An error for which api/errors.IsNotFound holds means the
// class does not exist. Implementations must be safe for concurrent use.
type RuntimeClassGetter interface {
	GetRuntimeClass(ctx context.Context, name string) (*node.RuntimeClass, error)
}

// RuntimeClass applies the RuntimeClass a new pod names
// (spec.runtimeClassName), as Kubernetes' RuntimeClass plugin does.
//
// As a Mutator, on pod create it sets spec.overhead to the class's
// overhead.podFixed (refusing a pod that sets another overhead), and
// merges the class's scheduling into the pod: its nodeSelector (refusing a
// conflicting value: `conflict: runtimeClass.scheduling.nodeSelector[k] =
// v; pod.spec.nodeSelector[k] = w`) and its tolerations (those the pod
// does not already carry). A class that does not exist is refused (403
// `pod rejected: RuntimeClass "x" not found`).
//
// As a Validator, on pod create it refuses an overhead that is not the
// class's (`pod rejected: Pod's Overhead doesn't match RuntimeClass's
// defined Overhead`), or any overhead without a class that defines one
// (`pod rejected: Pod Overhead set without corresponding RuntimeClass
// defined Overhead`).
//
// Subresources and other resources pass. A RuntimeClass plugin holds no
// state and is safe for concurrent use.
type RuntimeClass struct {
	Handler
	getter RuntimeClassGetter
}

var (
	_ Mutator   = (*RuntimeClass)(nil)
	_ Validator = (*RuntimeClass)(nil)
)

// NewRuntimeClass returns the plugin reading classes through getter.
func NewRuntimeClass(getter RuntimeClassGetter) *RuntimeClass {
	return &RuntimeClass{Handler: Handler{PluginName: RuntimeClassName, Operations: []Operation{Create}}, getter: getter}
}

// Admit sets a new pod's overhead and merges its class's scheduling.
func (p *RuntimeClass) Admit(ctx context.Context, a *Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if err != nil || rc == nil {
		return err
	}
	if rc.Overhead != nil {
		if len(pod.Spec.Overhead) > 0 && !pod.Spec.Overhead.Equal(rc.Overhead.PodFixed) {
			return forbidden(a, fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
		pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	}
	if rc.Scheduling == nil {
		return nil
	}
	if len(rc.Scheduling.NodeSelector) > 0 && pod.Spec.NodeSelector == nil {
		pod.Spec.NodeSelector = map[string]string{}
	}
	for k, v := range rc.Scheduling.NodeSelector {
		if have, ok := pod.Spec.NodeSelector[k]; ok && have != v {
			return forbidden(a, fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, have))
		}
		pod.Spec.NodeSelector[k] = v
	}
	for _, t := range rc.Scheduling.Tolerations {
		if !slices.Contains(pod.Spec.Tolerations, t) {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
		}
	}
	return nil
}

// Validate refuses a new pod whose overhead is not its class's.
func (p *RuntimeClass) Validate(ctx context.Context, a *Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if err != nil || pod == nil {
		return err
	}
	if rc != nil && rc.Overhead != nil {
		if !pod.Spec.Overhead.Equal(rc.Overhead.PodFixed) {
			return forbidden(a, fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
		return nil
	}
	if pod.Spec.Overhead != nil {
		return forbidden(a, fmt.Errorf("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	return nil
}

// prepare returns the pod being created and the class it names (nil when
// it names none); nil, nil for requests the plugin does not handle.
func (p *RuntimeClass) prepare(ctx context.Context, a *Attributes) (*core.Pod, *node.RuntimeClass, error) {
	if a.Operation != Create || a.Subresource != "" || a.Object == nil || a.Resource.GroupResource() != podsResource {
		return nil, nil, nil
	}
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return nil, nil, wrongType(a, "Pod")
	}
	if pod.Spec.RuntimeClassName == nil {
		return pod, nil, nil
	}
	rc, err := p.getter.GetRuntimeClass(ctx, *pod.Spec.RuntimeClassName)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil, forbidden(a, fmt.Errorf("pod rejected: RuntimeClass %q not found", *pod.Spec.RuntimeClassName))
	case err != nil:
		return nil, nil, apierrors.NewInternalError(fmt.Errorf("get runtimeclass %q: %w", *pod.Spec.RuntimeClassName, err))
	}
	return pod, rc, nil
}

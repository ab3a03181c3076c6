package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheduling"
)

// PriorityName is the name of the Priority plugin.
const PriorityName = "Priority"

// PriorityClassLister reads PriorityClasses, usually from a cache with a
// fallback to storage. Returned objects are shared: the plugin never
// changes them. GetPriorityClass returns an error for which
// api/errors.IsNotFound holds when the class does not exist; any other
// error means the lookup failed. Implementations must be safe for
// concurrent use.
type PriorityClassLister interface {
	GetPriorityClass(ctx context.Context, name string) (*scheduling.PriorityClass, error)
	ListPriorityClasses(ctx context.Context) ([]*scheduling.PriorityClass, error)
}

// Priority resolves the priority of new pods from PriorityClasses, as
// Kubernetes' Priority plugin does.
//
// As a Mutator, on pod create it looks up spec.priorityClassName — or,
// when none is named, the class marked globalDefault (the lowest-valued
// one if several are), which it then names in the pod — and sets
// spec.priority and spec.preemptionPolicy from it. Without a default class
// the priority is 0 and the policy PreemptLowerPriority. An unknown class
// is refused (403 `no PriorityClass with name X was found`), and so is a
// pod that sets a priority or preemptionPolicy other than its class's. On
// pod update it carries the old pod's priority and policy over when the
// new object omits them (validation keeps them immutable).
//
// As a Validator it refuses a second globalDefault PriorityClass (403
// `PriorityClass X is already marked as default. Only one default can
// exist`).
//
// Subresources pass. A Priority holds no state and is safe for concurrent
// use.
type Priority struct {
	Handler
	lister PriorityClassLister
}

var (
	_ Mutator   = (*Priority)(nil)
	_ Validator = (*Priority)(nil)
)

// NewPriority returns the plugin reading classes from lister.
func NewPriority(lister PriorityClassLister) *Priority {
	return &Priority{
		Handler: Handler{PluginName: PriorityName, Operations: []Operation{Create, Update}},
		lister:  lister,
	}
}

var priorityClassesResource = meta.GroupResource{Group: scheduling.GroupName, Resource: "priorityclasses"}

// Admit implements Mutator for pods.
func (p *Priority) Admit(ctx context.Context, a *Attributes) error {
	if a.Subresource != "" || a.Object == nil || a.Resource.GroupResource() != podsResource {
		return nil
	}
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return wrongType(a, "Pod")
	}
	if a.Operation == Update {
		if old, ok := a.OldObject.(*core.Pod); ok {
			if pod.Spec.Priority == nil {
				pod.Spec.Priority = old.Spec.Priority
			}
			if pod.Spec.PreemptionPolicy == nil {
				pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
			}
		}
		return nil
	}
	return p.admitNewPod(ctx, a, pod)
}

// admitNewPod resolves a new pod's class and sets its priority and policy.
func (p *Priority) admitNewPod(ctx context.Context, a *Attributes, pod *core.Pod) error {
	var pc *scheduling.PriorityClass
	if pod.Spec.PriorityClassName == "" {
		def, err := p.defaultClass(ctx)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to get default priority class: %w", err))
		}
		pc = def
	} else {
		c, err := p.lister.GetPriorityClass(ctx, pod.Spec.PriorityClassName)
		switch {
		case apierrors.IsNotFound(err):
			return forbidden(a, fmt.Errorf("no PriorityClass with name %v was found", pod.Spec.PriorityClassName))
		case err != nil:
			return apierrors.NewInternalError(fmt.Errorf("failed to get PriorityClass with name %s: %w", pod.Spec.PriorityClassName, err))
		}
		pc = c
	}
	priority, policy := scheduling.DefaultPriorityWhenNoDefaultClassExists, core.PreemptLowerPriority
	if pc != nil {
		pod.Spec.PriorityClassName, priority = pc.Name, pc.Value
		if pc.PreemptionPolicy != nil {
			policy = *pc.PreemptionPolicy
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return forbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return forbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
	}
	pod.Spec.Priority, pod.Spec.PreemptionPolicy = &priority, &policy
	return nil
}

// defaultClass returns the globalDefault class with the lowest value (if
// a race left several), or nil when there is none.
func (p *Priority) defaultClass(ctx context.Context) (*scheduling.PriorityClass, error) {
	list, err := p.lister.ListPriorityClasses(ctx)
	if err != nil {
		return nil, err
	}
	var def *scheduling.PriorityClass
	for _, pc := range list {
		if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
			def = pc
		}
	}
	return def, nil
}

// Validate implements Validator for PriorityClasses: at most one may be
// the global default.
func (p *Priority) Validate(ctx context.Context, a *Attributes) error {
	if a.Subresource != "" || a.Object == nil || a.Resource.GroupResource() != priorityClassesResource {
		return nil
	}
	pc, ok := a.Object.(*scheduling.PriorityClass)
	if !ok {
		return wrongType(a, "PriorityClass")
	}
	if !pc.GlobalDefault {
		return nil
	}
	def, err := p.defaultClass(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to get default priority class: %w", err))
	}
	if def != nil && (a.Operation == Create || def.Name != pc.Name) {
		return forbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

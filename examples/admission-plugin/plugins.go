package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// The names this example puts on objects.
const (
	// TeamLabel is the label RequireTeam insists on.
	TeamLabel = "team"
	// AdmittedByAnnotation is the annotation AdmittedBy sets.
	AdmittedByAnnotation = "example.orkit.io/admitted-by"
	// SidecarInitializer is the initializer's name, as the
	// InitializerConfiguration lists it.
	SidecarInitializer = "sidecar.example.orkit.io"
	// InjectedAnnotation marks a pod the sidecar was injected into.
	InjectedAnnotation = "sidecar.example.orkit.io/injected"
)

// ErrNoTeam is why RequireTeam refuses a pod.
var ErrNoTeam = errors.New(`pods must carry a "team" label naming the team that owns them (for example --labels=team=payments)`)

// podsGVR is the resource the plugins act on.
var podsGVR = meta.GroupVersionResource{Version: "v1", Resource: "pods"}

// isPod reports whether a is about a pod itself (not a subresource such
// as status or binding) and returns it.
func isPod(a *admission.Attributes) (*core.Pod, bool) {
	if a.Resource != podsGVR || a.Subresource != "" {
		return nil, false
	}
	pod, ok := a.Object.(*core.Pod)
	return pod, ok
}

// RequireTeam is a validating admission plugin: a pod created without a
// non-empty "team" label is refused, and so is an update that removes
// the label (pods that predate the policy may still be updated). Pods in
// kube-system are exempt: they belong to the cluster. It holds no state
// and is safe for concurrent use.
type RequireTeam struct{ admission.Handler }

var _ admission.Validator = (*RequireTeam)(nil)

// NewRequireTeam returns the plugin, handling creates and updates.
func NewRequireTeam() *RequireTeam {
	return &RequireTeam{admission.Handler{PluginName: "RequireTeam",
		Operations: []admission.Operation{admission.Create, admission.Update}}}
}

// Validate implements admission.Validator: it returns ErrNoTeam, which
// the API server answers with 403 Forbidden.
func (p *RequireTeam) Validate(_ context.Context, a *admission.Attributes) error {
	pod, ok := isPod(a)
	if !ok || pod.Namespace == "kube-system" || pod.Labels[TeamLabel] != "" {
		return nil
	}
	if a.Operation == admission.Update {
		if old, ok := a.OldObject.(*core.Pod); !ok || old.Labels[TeamLabel] == "" {
			return nil
		}
	}
	return ErrNoTeam
}

// AdmittedBy is a mutating admission plugin: it sets the annotation
// example.orkit.io/admitted-by on every new pod to the name of the user
// who created it (a client-supplied value is overwritten, so the
// annotation can be trusted). It holds no state and is safe for
// concurrent use.
type AdmittedBy struct{ admission.Handler }

var _ admission.Mutator = (*AdmittedBy)(nil)

// NewAdmittedBy returns the plugin, handling creates.
func NewAdmittedBy() *AdmittedBy {
	return &AdmittedBy{admission.Handler{PluginName: "AdmittedBy", Operations: []admission.Operation{admission.Create}}}
}

// Admit implements admission.Mutator; it changes a.Object in place.
func (p *AdmittedBy) Admit(_ context.Context, a *admission.Attributes) error {
	pod, ok := isPod(a)
	if !ok {
		return nil
	}
	user := "unknown"
	if a.User != nil && a.User.Name != "" {
		user = a.User.Name
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[AdmittedByAnnotation] = user
	return nil
}

// Sidecar is a Go initializer: when it heads a new pod's pending
// initializers and the pod exposes container port 80 (TCP), it appends
// Container to the pod's containers and marks the pod with
// InjectedAnnotation. Other pods pass unchanged. It is idempotent (a pod
// that already has a container of that name is left alone), as the
// Runner requires, and safe for concurrent use.
type Sidecar struct {
	// Container is what is injected; its Name must be unique in the pod.
	Container core.Container
}

var _ admission.Initializer = (*Sidecar)(nil)

// NewSidecar returns the initializer injecting a small proxy container
// (the bundled pause image stands in for a real proxy).
func NewSidecar() *Sidecar {
	return &Sidecar{Container: core.Container{Name: "proxy-sidecar", Image: "orkit.local/pause:v1"}}
}

// Name implements admission.Initializer.
func (s *Sidecar) Name() string { return SidecarInitializer }

// Initialize implements admission.Initializer. An error (the pod with
// the sidecar would be invalid) fails the pod: the API server deletes it
// and the client's create returns the error.
func (s *Sidecar) Initialize(_ context.Context, obj meta.Object) error {
	pod, ok := obj.(*core.Pod)
	if !ok {
		return fmt.Errorf("%s: expected a pod, got %T", SidecarInitializer, obj)
	}
	if !exposesPort(pod, 80) {
		return nil
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == s.Container.Name {
			return nil // injected already
		}
	}
	// The Runner writes the pod straight to storage, past the API
	// server's defaulting and validation: do both here.
	c := meta.DeepCopy(s.Container)
	core.DefaultContainer(&c)
	pod.Spec.Containers = append(pod.Spec.Containers, c)
	if errs := core.ValidatePod(pod); len(errs) > 0 {
		return fmt.Errorf("%s: the pod with the sidecar is invalid: %w", SidecarInitializer, errs.ToAggregate())
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[InjectedAnnotation] = c.Name
	return nil
}

// exposesPort reports whether a container of pod declares TCP port.
func exposesPort(pod *core.Pod, port int32) bool {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.ContainerPort == port && (p.Protocol == "" || p.Protocol == core.ProtocolTCP) {
				return true
			}
		}
	}
	return false
}

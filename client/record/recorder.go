package record

import (
	"github.com/orkit/orkit/api/meta"
)

// Recorder records Events about API objects. obj is the Event's subject
// (a *core.Pod, an *apps.Deployment, or a part of one made with
// WithFieldPath); eventType is core.EventTypeNormal or
// core.EventTypeWarning; reason is a short UpperCamelCase word
// ("Pulled"); message says what happened, for people.
//
// Implementations never block the caller and never fail it: an Event that
// cannot be recorded is dropped and counted. Recorders are safe for
// concurrent use.
type Recorder interface {
	// Event records an Event with a fixed message.
	Event(obj meta.Object, eventType, reason, message string)
	// Eventf records an Event whose message is fmt.Sprintf(format, args...).
	Eventf(obj meta.Object, eventType, reason, format string, args ...any)
}

// Discard is a Recorder that records nothing, for components whose
// Events nobody reads (simulated nodes, benchmarks).
type Discard struct{}

var _ Recorder = Discard{}

// Event implements Recorder: it does nothing.
func (Discard) Event(meta.Object, string, string, string) {}

// Eventf implements Recorder: it does nothing (args are not formatted).
func (Discard) Eventf(meta.Object, string, string, string, ...any) {}

// part is an object with a field path: the subject of an Event about one
// part of it.
type part struct {
	meta.Object
	fieldPath string
}

// WithFieldPath returns obj marked so that an Event about it names
// fieldPath in involvedObject.fieldPath, as Kubernetes does for a pod's
// container ("spec.containers{web}", "spec.initContainers{init}"). The
// result is only a subject for a Recorder; it shares obj.
func WithFieldPath(obj meta.Object, fieldPath string) meta.Object {
	if p, ok := obj.(part); ok {
		obj = p.Object
	}
	return part{Object: obj, fieldPath: fieldPath}
}

// ContainerFieldPath is the field path of the container called name of a
// pod: spec.initContainers{name} for an init container, else
// spec.containers{name}.
func ContainerFieldPath(name string, init bool) string {
	if init {
		return "spec.initContainers{" + name + "}"
	}
	return "spec.containers{" + name + "}"
}

// unwrap returns the object and field path of an Event's subject.
func unwrap(obj meta.Object) (meta.Object, string) {
	if p, ok := obj.(part); ok {
		return p.Object, p.fieldPath
	}
	return obj, ""
}

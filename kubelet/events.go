package kubelet

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client/record"
)

// The reasons of the kubelet's Events, as Kubernetes' kubelet spells them
// (pkg/kubelet/events); kubectl describe pod lists them.
const (
	EventCreated                  = "Created"
	EventStarted                  = "Started"
	EventFailed                   = "Failed"
	EventKilling                  = "Killing"
	EventBackOff                  = "BackOff"
	EventPulling                  = "Pulling"
	EventPulled                   = "Pulled"
	EventInspectFailed            = "InspectFailed"
	EventErrImageNeverPull        = "ErrImageNeverPull"
	EventUnhealthy                = "Unhealthy"
	EventFailedPostStartHook      = "FailedPostStartHook"
	EventFailedPreStopHook        = "FailedPreStopHook"
	EventSandboxChanged           = "SandboxChanged"
	EventFailedCreatePodSandBox   = "FailedCreatePodSandBox"
	EventFailedMount              = "FailedMount"
	EventFailedKillPod            = "FailedKillPod"
	EventFailedCreatePodContainer = "FailedCreatePodContainer"
	EventFailedPodDirectories     = "Failed"
	EventDeadlineExceeded         = "DeadlineExceeded"
)

// Component is the source.component of the kubelet's Events.
const Component = "kubelet"

// newRecorder returns cfg.Recorder, or a record.Writer of the kubelet's
// own (source kubelet on the node), which Run runs.
func newRecorder(cfg Config) (record.Recorder, *record.Writer, error) {
	if cfg.Recorder != nil {
		return cfg.Recorder, nil, nil
	}
	w, err := record.New(cfg.Client, record.Config{Logger: cfg.Logger,
		Source: core.EventSource{Component: Component, Host: cfg.NodeName}})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return w, w, nil
}

// podEvent records an Event about pod.
func (k *Kubelet) podEvent(pod *core.Pod, eventType, reason, format string, args ...any) {
	k.rec.Eventf(pod, eventType, reason, format, args...)
}

// containerEvent records an Event about the container cs of pod
// (involvedObject.fieldPath spec.containers{name} or
// spec.initContainers{name}).
func (k *Kubelet) containerEvent(pod *core.Pod, cs *ctrState, eventType, reason, format string, args ...any) {
	k.rec.Eventf(record.WithFieldPath(pod, record.ContainerFieldPath(cs.name, cs.init)), eventType, reason, format, args...)
}

// podDescription formats pod as Kubernetes' messages do:
// name_namespace(uid).
func podDescription(pod *core.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// killMessage is the message of the Killing Event for a container the
// kubelet stops, by why it stops it.
func killMessage(name, killReason string) string {
	switch killReason {
	case "LivenessProbeFailed":
		return fmt.Sprintf("Container %s failed liveness probe, will be restarted", name)
	case "StartupProbeFailed":
		return fmt.Sprintf("Container %s failed startup probe, will be restarted", name)
	case ReasonPostStartHookError:
		return "FailedPostStartHook"
	}
	return "Stopping container " + name
}

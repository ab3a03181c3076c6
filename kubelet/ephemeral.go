package kubelet

import (
	"context"
	"time"

	"github.com/orkit/orkit/api/core"
)

// syncEphemeralContainers starts the pod's ephemeral containers (kubectl
// debug) that have not run yet, in the pod's sandbox (its network, IPC
// and UTS namespaces, and its PID namespace when the pod shares one).
// An ephemeral container runs once: it is never restarted, whatever the
// pod's restart policy, and a start that failed after the container was
// created is not retried; an image that cannot be pulled is retried with
// the usual back-off. It returns when the pod needs its next sync (0: no
// need).
func (k *Kubelet) syncEphemeralContainers(ctx context.Context, pod *core.Pod, ps *podState) time.Duration {
	var next time.Duration
	for i := range pod.Spec.EphemeralContainers {
		c := &pod.Spec.EphemeralContainers[i].Container
		cs := ps.ctr(c.Name, false)
		if cs.created || cs.id != "" {
			continue // it ran, or runs: never again
		}
		if d, started := k.startContainer(ctx, pod, ps, c, cs); !started && (next == 0 || d < next) {
			next = d
		}
	}
	return next
}

// ephemeralContainerStatuses reports the ephemeral containers' states; they
// count neither for the pod's phase nor for its readiness.
func (k *Kubelet) ephemeralContainerStatuses(ctx context.Context, pod *core.Pod, ps *podState) []core.ContainerStatus {
	var out []core.ContainerStatus
	for i := range pod.Spec.EphemeralContainers {
		cs := k.containerStatusOf(ctx, &pod.Spec.EphemeralContainers[i].Container, ps, false, ps.killed || ps.terminal)
		cs.Ready = false
		out = append(out, cs)
	}
	return out
}

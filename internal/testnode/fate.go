package testnode

import "github.com/orkit/orkit/api/core"

// Fate is what the agent makes of one bound pod.
type Fate int

const (
	// Ready: the pod runs and is ready (the default).
	Ready Fate = iota
	// NotReady: the pod runs but its containers are not ready.
	NotReady
	// Pending: the agent leaves the pod's status alone (it stays Pending).
	Pending
	// Succeeded: the pod's containers exit 0 and the pod ends Succeeded.
	Succeeded
	// Failed: the pod's containers exit 1. With restartPolicy Never the pod
	// ends Failed; otherwise the kubelet would restart them, so the pod
	// stays Running, not ready, with one restart per container and the
	// containers waiting in CrashLoopBackOff.
	Failed
)

// String names the fate.
func (f Fate) String() string {
	switch f {
	case Ready:
		return "Ready"
	case NotReady:
		return "NotReady"
	case Pending:
		return "Pending"
	case Succeeded:
		return "Succeeded"
	case Failed:
		return "Failed"
	}
	return "Fate(?)"
}

// FateFunc decides a pod's fate. It is called on the agent's workers with
// the cache's pod, which it must not modify, and must not block.
type FateFunc func(pod *core.Pod) Fate

// AlwaysReady is the default FateFunc.
func AlwaysReady(*core.Pod) Fate { return Ready }

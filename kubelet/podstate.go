package kubelet

import (
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
)

// Labels the kubelet puts on sandboxes and containers, so a restarted
// kubelet finds what it runs.
const (
	labelPodUID        = "io.orkit.pod.uid"
	labelPodName       = "io.orkit.pod.name"
	labelPodNamespace  = "io.orkit.pod.namespace"
	labelContainerName = "io.orkit.container.name"
	labelContainerInit = "io.orkit.container.init"
)

// podState is what a pod worker knows about its pod between syncs. It is
// owned by the worker goroutine.
type podState struct {
	adopted  bool
	admitted bool
	// rejection is set when admission refused the pod.
	rejection *AdmitResult
	// terminal: the pod reached Succeeded or Failed; its sandbox is stopped.
	terminal bool
	reason   string // pod-level status reason (DeadlineExceeded, OutOfcpu, ...)
	message  string
	killed   bool // containers stopped for deletion
	reported bool // a status was computed for this worker

	cgroupParent string
	volumes      map[string]mountedVolume
	volumesReady bool

	sandboxID      string
	sandboxAttempt uint32
	sandboxCfg     cri.PodSandboxConfig
	netnsPath      string
	podIPs         []string
	networkReady   bool
	netWait        func() error // set while the network is being attached
	etcHosts       []byte       // content of the managed hosts file last written

	// allocated are the containers' resources the node granted (at
	// admission, then by resizes that fit); resizePending is why the pod's
	// current resize is not granted yet.
	allocated     map[string]core.ResourceRequirements
	resizePending *resizePending
	// cgroupStale: a container took a resize this sync; the pod cgroup
	// gets its final limits once every container has.
	cgroupStale bool

	startTime  *meta.Time
	containers map[string]*ctrState // by container name (init and app)
	pulls      map[string]*backoff  // image pull back-off per image
	lastErr    string
}

func newPodState() *podState {
	return &podState{containers: map[string]*ctrState{}, pulls: map[string]*backoff{}}
}

// ctr returns the state of the named container, creating it.
func (ps *podState) ctr(name string, init bool) *ctrState {
	c := ps.containers[name]
	if c == nil {
		c = &ctrState{name: name, init: init}
		ps.containers[name] = c
	}
	return c
}

// ctrState is one container's history on this node.
type ctrState struct {
	name string
	init bool
	// id is the current runtime container ("" before the first start or
	// after the sandbox was replaced); attempt is its CRI attempt, which
	// is the restart count.
	id      string
	attempt uint32
	created bool // attempt counts a created container
	// waiting, when set, is why no container runs (ContainerCreating,
	// CrashLoopBackOff, ErrImagePull, CreateContainerConfigError, ...).
	waiting  *core.ContainerStateWaiting
	lastTerm *core.ContainerStateTerminated
	restart  backoff
	// killReason, when set, is why the kubelet killed the container
	// (liveness or postStart failure); it then restarts per policy.
	killReason string
	started    bool // startup probe passed (or none)
	ready      bool
	probes     map[probeKind]*probeState
	cpus       string // exclusive cpuset from the static CPU manager
	// applied are the resources the running container was configured
	// with (nil before it runs); resizeErr is why applying a resize to it
	// failed last.
	applied   *core.ResourceRequirements
	resizeErr string
	// termMsg is the termination message of the exited container
	// termMsgID, read once.
	termMsgID, termMsg string
	// cached is the runtime status read during the current sync; it is
	// dropped at the start of each sync and by every call that changes
	// the container, so one sync sees one consistent view.
	cached *cri.ContainerStatus
	// statusErr is why the runtime could not tell the container's status
	// during the current sync (not "not found": it is down, or timed
	// out). The container's state is then unknown, and nothing is done
	// to it or reported about it until the runtime answers.
	statusErr error
}

// dropCachedStatuses starts a sync with fresh runtime statuses.
func (ps *podState) dropCachedStatuses() {
	for _, cs := range ps.containers {
		cs.cached, cs.statusErr = nil, nil
	}
}

// statusUnknown reports whether the runtime failed to tell the status of
// one of the pod's containers during the current sync.
func (ps *podState) statusUnknown() error {
	for _, cs := range ps.containers {
		if cs.statusErr != nil {
			return cs.statusErr
		}
	}
	return nil
}

// backoff is an exponential back-off: the next attempt is allowed at until.
type backoff struct {
	delay time.Duration
	until time.Time
}

// next schedules the next attempt after now, doubling the delay from base
// up to max.
func (b *backoff) next(now time.Time, base, max time.Duration) {
	if b.delay == 0 {
		b.delay = base
	} else {
		b.delay = min(b.delay*2, max)
	}
	b.until = now.Add(b.delay)
}

// waiting reports whether the back-off still holds at now.
func (b *backoff) waiting(now time.Time) bool { return now.Before(b.until) }

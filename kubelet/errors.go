package kubelet

import "errors"

// Sentinel errors of the kubelet. Errors returned by the package wrap one of
// these (or a runtime or API error) with the subject, so errors.Is works.
var (
	// ErrInvalidConfig: a Config field is missing or out of range.
	ErrInvalidConfig = errors.New("invalid kubelet config")
	// ErrVolume: a volume could not be set up or torn down.
	ErrVolume = errors.New("volume error")
	// ErrConfigRef: an env or envFrom reference names a missing Secret,
	// ConfigMap or key (CreateContainerConfigError).
	ErrConfigRef = errors.New("missing config reference")
	// ErrImagePull: an image could not be pulled.
	ErrImagePull = errors.New("image pull failed")
	// ErrImageNeverPull: the image is absent and the policy is Never.
	ErrImageNeverPull = errors.New("image absent and pull policy is Never")
	// ErrHook: a lifecycle hook failed.
	ErrHook = errors.New("lifecycle hook failed")
	// ErrProbe: a probe could not be run (as opposed to failing).
	ErrProbe = errors.New("probe error")
	// ErrCgroup: a pod cgroup could not be set up or removed.
	ErrCgroup = errors.New("cgroup error")
	// ErrLogs: container logs could not be served.
	ErrLogs = errors.New("logs unavailable")
	// ErrExecProtocol: an exec stream message broke the channel protocol
	// (empty, oversized, bad resize, unknown channel).
	ErrExecProtocol = errors.New("exec stream protocol error")
	// ErrForbidden: a log request came from someone other than the API server.
	ErrForbidden = errors.New("forbidden")
	// ErrNoNode: a simulated node pool has no node of that name.
	ErrNoNode = errors.New("no such node")
	// ErrNoCPUs: the static CPU manager has too few free CPUs.
	ErrNoCPUs = errors.New("not enough exclusive CPUs")
)

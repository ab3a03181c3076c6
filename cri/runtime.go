package cri

import (
	"context"
	"io"
	"time"
)

// Runtime is a node's container runtime: sandboxes, containers, images,
// events and status. Every method is safe for concurrent use and honours
// ctx (cancellation and deadline) for the call itself; objects outlive the
// call. Objects are identified by opaque IDs the runtime assigns.
//
// State lives in the runtime, not in the caller: a new Runtime value
// connected to the same backend reports the same sandboxes and containers
// (same IDs, states, exit codes) as the one before it.
type Runtime interface {
	SandboxManager
	ContainerManager
	ImageManager
	EventSource
	StatusReporter
}

// SandboxManager runs pod sandboxes.
type SandboxManager interface {
	// RunPodSandbox creates and starts a sandbox for the pod and returns
	// its ID. The sandbox holds the pod's network namespace (unless
	// cfg.Linux.Security.NamespaceOptions.Network is NamespaceNode), IPC
	// and UTS namespaces (hostname cfg.Hostname) and, with PID mode
	// NamespacePod, the shared PID namespace. It fails with
	// ErrAlreadyExists when a sandbox with the same metadata (name,
	// namespace, uid, attempt) exists, ErrInvalidArgument on a bad config,
	// ErrImageNotFound when the runtime's pause image is missing. On error
	// nothing is left behind.
	RunPodSandbox(ctx context.Context, cfg PodSandboxConfig) (id string, err error)
	// StopPodSandbox stops every container of the sandbox (kill, no grace:
	// callers stop containers gracefully first) and the sandbox itself;
	// the state becomes SandboxNotReady. The network namespace stays until
	// RemovePodSandbox so the caller can tear its networking down.
	// Idempotent: stopping a stopped or missing sandbox succeeds.
	StopPodSandbox(ctx context.Context, id string) error
	// RemovePodSandbox removes the sandbox and all its containers (forcibly
	// when running), its network namespace and everything the runtime
	// made for it. Idempotent: removing a missing sandbox succeeds.
	RemovePodSandbox(ctx context.Context, id string) error
	// PodSandboxStatus returns the sandbox's status, or ErrNotFound.
	PodSandboxStatus(ctx context.Context, id string) (PodSandboxStatus, error)
	// ListPodSandbox returns the sandboxes matching f, in creation order.
	ListPodSandbox(ctx context.Context, f PodSandboxFilter) ([]PodSandbox, error)
	// UpdatePodSandboxNetwork records the pod IPs the caller's network
	// setup assigned, so that PodSandboxStatus reports them; the record is
	// durable (survives a restart of the caller). ErrNotFound if missing.
	UpdatePodSandboxNetwork(ctx context.Context, id string, n PodSandboxNetworkStatus) error
}

// ContainerManager runs containers inside sandboxes.
type ContainerManager interface {
	// CreateContainer creates (does not start) a container in the sandbox
	// and returns its ID. sandboxCfg is the config the sandbox was run
	// with (log directory, namespace options, cgroup parent). Errors:
	// ErrNotFound (sandbox), ErrFailedPrecondition (sandbox not ready),
	// ErrAlreadyExists (same name and attempt in the sandbox),
	// ErrImageNotFound (image not on the node; the runtime never pulls
	// here), ErrInvalidArgument.
	CreateContainer(ctx context.Context, sandboxID string, cfg ContainerConfig, sandboxCfg PodSandboxConfig) (id string, err error)
	// StartContainer starts a CREATED container. ErrNotFound;
	// ErrFailedPrecondition when it is not CREATED.
	StartContainer(ctx context.Context, id string) error
	// StopContainer sends SIGTERM (or the image's stop signal), waits up
	// to timeout for the container to exit, then SIGKILLs it and waits for
	// the exit. timeout 0 kills at once. Idempotent: stopping an exited,
	// created or missing container succeeds.
	StopContainer(ctx context.Context, id string, timeout time.Duration) error
	// RemoveContainer removes the container, forcibly if it runs, and
	// what the runtime holds for it (its log file stays: the caller owns
	// log rotation and removal). Idempotent: a missing container succeeds.
	RemoveContainer(ctx context.Context, id string) error
	// ListContainers returns the containers matching f, in creation order.
	ListContainers(ctx context.Context, f ContainerFilter) ([]Container, error)
	// ContainerStatus returns the container's status, or ErrNotFound.
	ContainerStatus(ctx context.Context, id string) (ContainerStatus, error)
	// UpdateContainerResources applies new resource limits to a created or
	// running container. ErrNotFound; ErrFailedPrecondition when exited.
	UpdateContainerResources(ctx context.Context, id string, r LinuxContainerResources) error
	// ExecSync runs cmd in the running container and returns its output
	// and exit code. A non-zero exit code is not an error. When timeout
	// (> 0) elapses the process is killed and the error wraps ErrTimeout.
	// ErrNotFound; ErrFailedPrecondition when the container is not
	// running. Output beyond MaxExecOutput per stream is dropped.
	ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (ExecResult, error)
	// Exec runs req.Cmd in the running container with req's streams
	// attached (kubectl exec) and returns its exit code once the process
	// has exited and all its output has been written. A non-zero exit
	// code is not an error. When ctx ends first the process is killed and
	// ctx's error returned. ErrInvalidArgument (empty command);
	// ErrNotFound; ErrFailedPrecondition when the container is not
	// running.
	Exec(ctx context.Context, id string, req ExecRequest) (exitCode int32, err error)
}

// MaxExecOutput is the most ExecSync keeps of each of stdout and stderr
// (16 MiB, as CRI's default message size).
const MaxExecOutput = 16 << 20

// ExecResult is what an ExecSync command produced.
type ExecResult struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int32
}

// ImageManager stores images on the node.
type ImageManager interface {
	// PullImage fetches the image from its registry with the optional
	// credentials and unpacks it, returning the image reference (the
	// manifest digest reference, "name@sha256:..."). Errors wrap
	// ErrUnauthorized (credentials refused), ErrImageNotFound (no such
	// repository or tag), ErrInvalidImage (bad name).
	PullImage(ctx context.Context, image ImageSpec, auth *AuthConfig) (ref string, err error)
	// ImageStatus returns the image, or an error wrapping
	// ErrImageNotFound when it is not on the node.
	ImageStatus(ctx context.Context, image ImageSpec) (Image, error)
	// ListImages returns the images matching f (an empty filter: all).
	ListImages(ctx context.Context, f ImageFilter) ([]Image, error)
	// RemoveImage removes the image (all its tags). Idempotent: a missing
	// image succeeds.
	RemoveImage(ctx context.Context, image ImageSpec) error
	// ImportImage reads an OCI image layout tar archive (index.json with
	// org.opencontainers.image.ref.name annotations; a docker-save
	// manifest.json is accepted too), stores and unpacks its images and
	// returns them. A malformed archive fails with ErrInvalidImage and
	// stores nothing named.
	ImportImage(ctx context.Context, r io.Reader) ([]Image, error)
}

// EventSource streams container lifecycle events.
type EventSource interface {
	// Events subscribes to container events from now on. The channel is
	// closed when ctx is done or the runtime is closed. Events for one
	// container arrive in order (CREATED, STARTED, [OOM,] EXITED,
	// DELETED). Events are a hint for prompt reaction, not a log: a slow
	// subscriber whose buffer is full loses events, so consumers also
	// relist periodically (as the kubelet's PLEG does).
	Events(ctx context.Context) <-chan ContainerEvent
}

// StatusReporter reports the runtime's version and health.
type StatusReporter interface {
	// Version returns the runtime's name and versions; it fails with
	// ErrUnavailable when the backend is down.
	Version(ctx context.Context) (VersionInfo, error)
	// Status returns the runtime's conditions. A backend that is down is
	// reported as RuntimeReady false with a reason, not as an error.
	Status(ctx context.Context) (RuntimeStatus, error)
}

// VersionInfo names the runtime.
type VersionInfo struct {
	// RuntimeName is the backend's name, e.g. "containerd".
	RuntimeName string
	// RuntimeVersion is the backend's version, e.g. "1.6.20".
	RuntimeVersion string
	// APIVersion is the version of this interface, "v1".
	APIVersion string
}

// Condition types reported by Status.
const (
	// RuntimeReady: the runtime can run sandboxes and containers.
	RuntimeReady = "RuntimeReady"
	// NetworkReady: pod networking is ready. Runtimes that leave pod
	// networking to the caller (as cri/containerd does) do not report it.
	NetworkReady = "NetworkReady"
)

// RuntimeCondition is one condition of the runtime.
type RuntimeCondition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// RuntimeStatus is the runtime's health.
type RuntimeStatus struct {
	Conditions []RuntimeCondition
}

// Condition returns the condition of the given type and whether it is
// present.
func (s RuntimeStatus) Condition(typ string) (RuntimeCondition, bool) {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return RuntimeCondition{}, false
}

package cri

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ContainerMetadata identifies a container within its sandbox: Name is
// required and, with Attempt, unique in the sandbox.
type ContainerMetadata struct {
	Name    string
	Attempt uint32
}

// KeyValue is one environment variable.
type KeyValue struct {
	Key   string
	Value string
}

// MountPropagation is a mount's propagation mode.
type MountPropagation string

// Propagation modes; empty means PropagationPrivate.
const (
	PropagationPrivate         MountPropagation = "PRIVATE"
	PropagationHostToContainer MountPropagation = "HOST_TO_CONTAINER"
	PropagationBidirectional   MountPropagation = "BIDIRECTIONAL"
)

// Mount bind-mounts a host path, or an image's content, into a container.
type Mount struct {
	ContainerPath string
	// HostPath is the host file or directory to bind; empty for an image
	// mount.
	HostPath    string
	Readonly    bool
	Propagation MountPropagation
	// Image, when set, mounts the content of that image (an image volume):
	// the runtime mounts the image's root filesystem read-only on the host
	// once per sandbox and image, binds it (or ImageSubPath, a directory
	// inside it) into the container, and releases it with the sandbox
	// (RemovePodSandbox). The image must be on the node: the runtime never
	// pulls here (ErrImageNotFound). HostPath must be empty and Readonly
	// true.
	Image *ImageSpec
	// ImageSubPath is a relative path of a directory in Image's content to
	// mount instead of its root; it may not leave the image's root, also
	// not through a symlink.
	ImageSubPath string
}

// Device makes a host device available in a container.
type Device struct {
	ContainerPath string
	HostPath      string
	// Permissions is the cgroup permissions string ("rwm").
	Permissions string
}

// ContainerConfig is what CreateContainer needs.
type ContainerConfig struct {
	Metadata ContainerMetadata
	Image    ImageSpec
	// Command replaces the image's entrypoint, Args its cmd, as in a pod
	// spec; empty keeps the image's.
	Command    []string
	Args       []string
	WorkingDir string
	Envs       []KeyValue
	Mounts     []Mount
	Devices    []Device
	Labels     map[string]string
	// Annotations are kept and reported; the runtime may act on ones it
	// documents.
	Annotations map[string]string
	// LogPath is the container's log file relative to the sandbox's
	// LogDirectory; stdout and stderr are written to it in the CRI log
	// format ("<RFC3339Nano> <stream> <F|P> <line>").
	LogPath string
	// Stdin keeps the process's stdin open (it reads nothing, not EOF,
	// until something is written) for an attach; without it stdin is
	// empty (EOF at once). StdinOnce closes stdin when the first attach
	// ends. Runtimes that implement StdinAttacher honour both; others may
	// ignore them.
	Stdin     bool
	StdinOnce bool
	// TTY runs the process on a terminal; its output is logged as stdout.
	TTY   bool
	Linux LinuxContainerConfig
}

// Validate checks the fields every runtime requires; the error wraps
// ErrInvalidArgument.
func (c ContainerConfig) Validate() error {
	if c.Metadata.Name == "" {
		return fmt.Errorf("container metadata needs a name: %w", ErrInvalidArgument)
	}
	if c.Image.Image == "" {
		return fmt.Errorf("container %q needs an image: %w", c.Metadata.Name, ErrInvalidArgument)
	}
	for _, m := range c.Mounts {
		if m.ContainerPath == "" || m.ContainerPath[0] != '/' {
			return fmt.Errorf("container %q: mount path %q must be absolute: %w", c.Metadata.Name, m.ContainerPath, ErrInvalidArgument)
		}
		if err := m.validateImage(); err != nil {
			return fmt.Errorf("container %q: mount %q: %w", c.Metadata.Name, m.ContainerPath, err)
		}
	}
	if r := c.Linux.Resources; r != nil {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("container %q: %w", c.Metadata.Name, err)
		}
	}
	return nil
}

// validateImage checks an image mount's fields; the error wraps
// ErrInvalidArgument.
func (m Mount) validateImage() error {
	if m.Image == nil {
		if m.ImageSubPath != "" {
			return fmt.Errorf("imageSubPath %q without an image: %w", m.ImageSubPath, ErrInvalidArgument)
		}
		return nil
	}
	switch {
	case m.Image.Image == "":
		return fmt.Errorf("image mount names no image: %w", ErrInvalidArgument)
	case m.HostPath != "":
		return fmt.Errorf("image mount of %s has a host path %q: %w", m.Image.Image, m.HostPath, ErrInvalidArgument)
	case !m.Readonly:
		return fmt.Errorf("image mount of %s must be read-only: %w", m.Image.Image, ErrInvalidArgument)
	}
	p := m.ImageSubPath
	if strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
		return fmt.Errorf("imageSubPath %q must be relative without '..': %w", p, ErrInvalidArgument)
	}
	return nil
}

// LinuxContainerConfig holds the Linux specifics of a container.
type LinuxContainerConfig struct {
	// Resources are the container's limits; nil: none.
	Resources *LinuxContainerResources
	Security  LinuxContainerSecurityContext
}

// LinuxContainerResources are a container's cgroup limits. Zero fields
// mean "not set".
type LinuxContainerResources struct {
	// CPUPeriod and CPUQuota are the CFS period and quota in microseconds.
	CPUPeriod int64
	CPUQuota  int64
	// CPUShares is the relative CPU weight (2..262144).
	CPUShares int64
	// MemoryLimitInBytes is the hard memory limit; going over it OOM-kills.
	MemoryLimitInBytes int64
	OOMScoreAdj        int64
	CpusetCpus         string
	CpusetMems         string
}

// Validate rejects negative or out-of-range values with ErrInvalidArgument.
func (r LinuxContainerResources) Validate() error {
	if r.CPUPeriod < 0 || r.CPUQuota < -1 || r.CPUShares < 0 || r.MemoryLimitInBytes < 0 {
		return fmt.Errorf("negative resource value in %+v: %w", r, ErrInvalidArgument)
	}
	if r.OOMScoreAdj < -1000 || r.OOMScoreAdj > 1000 {
		return fmt.Errorf("oom score adj %d out of [-1000, 1000]: %w", r.OOMScoreAdj, ErrInvalidArgument)
	}
	return nil
}

// Capability adds and drops Linux capabilities ("NET_ADMIN" or
// "CAP_NET_ADMIN"; "ALL" in Drop drops every one).
type Capability struct {
	Add  []string
	Drop []string
}

// LinuxContainerSecurityContext is a container's security settings.
type LinuxContainerSecurityContext struct {
	Capabilities *Capability
	// Privileged gives every capability and device; runtimes refuse it
	// unless configured to allow privileged containers.
	Privileged       bool
	NamespaceOptions NamespaceOptions
	// RunAsUser / RunAsGroup: nil keeps the image's user.
	RunAsUser          *int64
	RunAsGroup         *int64
	SupplementalGroups []int64
	ReadonlyRootfs     bool
	NoNewPrivs         bool
}

// ContainerState is a container's state.
type ContainerState string

// Container states.
const (
	ContainerCreated ContainerState = "CONTAINER_CREATED"
	ContainerRunning ContainerState = "CONTAINER_RUNNING"
	ContainerExited  ContainerState = "CONTAINER_EXITED"
	ContainerUnknown ContainerState = "CONTAINER_UNKNOWN"
)

// Reasons an exited container reports in ContainerStatus.Reason.
const (
	// ReasonCompleted: exited with code 0.
	ReasonCompleted = "Completed"
	// ReasonError: exited with a non-zero code.
	ReasonError = "Error"
	// ReasonOOMKilled: killed by the kernel's OOM killer.
	ReasonOOMKilled = "OOMKilled"
	// ReasonContainerCannotRun: the process could not be started.
	ReasonContainerCannotRun = "ContainerCannotRun"
)

// Container is a container as ListContainers reports it.
type Container struct {
	ID           string
	PodSandboxID string
	Metadata     ContainerMetadata
	Image        ImageSpec
	// ImageRef is the resolved image reference (digest or image ID).
	ImageRef    string
	State       ContainerState
	CreatedAt   time.Time
	Labels      map[string]string
	Annotations map[string]string
}

// ContainerStatus is the full status of a container. Zero times mean
// "not yet" (StartedAt of a CREATED container, FinishedAt of a running
// one).
type ContainerStatus struct {
	ID           string
	PodSandboxID string
	Metadata     ContainerMetadata
	State        ContainerState
	CreatedAt    time.Time
	StartedAt    time.Time
	FinishedAt   time.Time
	// ExitCode is meaningful when State is ContainerExited.
	ExitCode int32
	Image    ImageSpec
	ImageRef string
	// Reason is one of the Reason* constants for an exited container;
	// Message adds detail (empty when there is none).
	Reason      string
	Message     string
	Labels      map[string]string
	Annotations map[string]string
	Mounts      []Mount
	// LogPath is the absolute path of the container's log file ("" if none).
	LogPath   string
	Resources *LinuxContainerResources
}

// ContainerFilter selects containers; zero fields match everything.
type ContainerFilter struct {
	ID           string
	PodSandboxID string
	State        ContainerState
	// LabelSelector matches containers carrying all these labels.
	LabelSelector map[string]string
}

// Matches reports whether c passes the filter.
func (f ContainerFilter) Matches(c Container) bool {
	return (f.ID == "" || f.ID == c.ID) &&
		(f.PodSandboxID == "" || f.PodSandboxID == c.PodSandboxID) &&
		(f.State == "" || f.State == c.State) &&
		MatchLabels(f.LabelSelector, c.Labels)
}

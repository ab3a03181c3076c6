package fake

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/orkit/orkit/cri"
)

// Default images a new Runtime holds: the bundled pause and hello images.
const (
	DefaultPauseImage = "orkit.local/pause:v1"
	DefaultHelloImage = "orkit.local/hello:v1"
)

// methods are the cri.Runtime methods that options and failure injection
// may name.
var methods = []string{
	"RunPodSandbox", "StopPodSandbox", "RemovePodSandbox", "PodSandboxStatus", "ListPodSandbox",
	"UpdatePodSandboxNetwork", "CreateContainer", "StartContainer", "StopContainer", "RemoveContainer",
	"ListContainers", "ContainerStatus", "UpdateContainerResources", "ExecSync", "Exec", "PullImage",
	"ImageStatus", "ListImages", "RemoveImage", "ImportImage", "Version", "Status",
}

func checkMethod(m string) error {
	if !slices.Contains(methods, m) {
		return fmt.Errorf("%w: %q", ErrUnknownMethod, m)
	}
	return nil
}

// Option configures a Runtime at New.
type Option func(*options) error

// ExecFunc runs an ExecSync command in a running container whose
// configuration was cfg. It runs on the caller's goroutine without the
// runtime's lock held; timeout is the caller's (0: none) and a function
// that exceeds it should return an error wrapping cri.ErrTimeout.
type ExecFunc func(ctx context.Context, cfg cri.ContainerConfig, cmd []string, timeout time.Duration) (cri.ExecResult, error)

// Program is how a simulated container's process behaves once started.
type Program struct {
	// ExitAfter > 0 makes the container exit by itself that long after it
	// started, with ExitCode; 0 means it runs until stopped or Exit.
	ExitAfter time.Duration
	ExitCode  int32
	// ExitNow makes it exit with ExitCode as soon as it started.
	ExitNow bool
	// IgnoreSIGTERM makes StopContainer wait its whole timeout and then
	// kill the container (exit code 137); otherwise SIGTERM ends it with
	// TermExitCode.
	IgnoreSIGTERM bool
	TermExitCode  int32
}

// ProgramFunc chooses a container's Program from its configuration.
type ProgramFunc func(cfg cri.ContainerConfig) Program

type options struct {
	latency        map[string]time.Duration
	defaultLatency time.Duration
	failures       map[string]failure
	idPrefix       string
	deterministic  bool
	images         []string
	pauseImage     string
	program        ProgramFunc
	exec           ExecFunc
	registry       func(ref string) bool
	auth           *cri.AuthConfig
	eventBuffer    int
}

// WithLatency makes every call of method take at least d (a call whose
// ctx ends first returns ctx's error).
func WithLatency(method string, d time.Duration) Option {
	return func(o *options) error {
		if err := checkMethod(method); err != nil {
			return err
		}
		o.latency[method] = d
		return nil
	}
}

// WithDefaultLatency makes every call without its own WithLatency take d.
func WithDefaultLatency(d time.Duration) Option {
	return func(o *options) error { o.defaultLatency = d; return nil }
}

// WithFailure makes every call of method fail with err (wrapped with the
// method's name) until Runtime.ClearFailure.
func WithFailure(method string, err error) Option {
	return func(o *options) error {
		if err := checkMethod(method); err != nil {
			return err
		}
		o.failures[method] = failure{err: err, remaining: -1}
		return nil
	}
}

// WithDeterministicIDs makes IDs predictable: prefix + "s<n>" for
// sandboxes and prefix + "c<n>" for containers, n counting from 1 per
// Runtime. Without it IDs are 64 random hex digits, as containerd's.
func WithDeterministicIDs(prefix string) Option {
	return func(o *options) error { o.idPrefix, o.deterministic = prefix, true; return nil }
}

// WithImages replaces the images the node starts with (default: the
// bundled pause and hello images).
func WithImages(refs ...string) Option {
	return func(o *options) error { o.images = slices.Clone(refs); return nil }
}

// WithPauseImage names the sandbox image RunPodSandbox needs present
// (default DefaultPauseImage); "" needs none.
func WithPauseImage(ref string) Option {
	return func(o *options) error { o.pauseImage = ref; return nil }
}

// WithProgram replaces the simulated program model (see the package doc).
func WithProgram(f ProgramFunc) Option {
	return func(o *options) error { o.program = f; return nil }
}

// WithExec replaces the simulated ExecSync tool.
func WithExec(f ExecFunc) Option {
	return func(o *options) error { o.exec = f; return nil }
}

// WithRegistry restricts PullImage to the refs for which has returns true
// (the rest fail with cri.ErrImageNotFound); by default every well-formed
// ref can be pulled.
func WithRegistry(has func(ref string) bool) Option {
	return func(o *options) error { o.registry = has; return nil }
}

// WithRegistryAuth makes PullImage demand these credentials (Username and
// Password, or the same pair base64-encoded in Auth); others fail with
// cri.ErrUnauthorized.
func WithRegistryAuth(username, password string) Option {
	return func(o *options) error {
		o.auth = &cri.AuthConfig{Username: username, Password: password}
		return nil
	}
}

// WithEventBuffer sets each Events subscriber's buffer (default 1024);
// events for a full subscriber are dropped.
func WithEventBuffer(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("event buffer %d is negative", n)
		}
		o.eventBuffer = n
		return nil
	}
}

package critest

import (
	"io"
	"testing"
	"time"

	"github.com/orkit/orkit/cri"
)

// Harness is what a runtime under test supplies to Run.
type Harness struct {
	// New returns a fresh runtime for one subtest, holding PauseImage and
	// HelloImage and no sandboxes or containers; it registers its own
	// clean-up with t.Cleanup. Required.
	New func(t *testing.T) cri.Runtime
	// PauseImage and HelloImage are the refs of the bundled images
	// (orkit.local/pause:v1 and orkit.local/hello:v1). Required.
	PauseImage string
	HelloImage string
	// HelloBinary is the hello tool's path in HelloImage; "" means "/hello".
	HelloBinary string
	// Sandbox, if set, adjusts every sandbox config the suite makes (log
	// directory, cgroup parent, ...) before RunPodSandbox.
	Sandbox func(t *testing.T, cfg *cri.PodSandboxConfig)
	// ImportArchive, if set, returns an image archive (OCI layout tar)
	// naming ImportRef, an image the suite may import and then remove;
	// without it the import and removal checks are skipped.
	ImportArchive func(t *testing.T) io.Reader
	ImportRef     string
	// Timeout bounds each wait for a state change; 0 means 30s.
	Timeout time.Duration
}

func (h Harness) timeout() time.Duration {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return 30 * time.Second
}

func (h Harness) hello() string {
	if h.HelloBinary != "" {
		return h.HelloBinary
	}
	return "/hello"
}

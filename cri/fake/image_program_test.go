package fake

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/cri"
)

// TestImageProgram: how a simulated node models the main process of the
// images the Kubernetes conformance suite runs (agnhost, busybox, pause).
func TestImageProgram(t *testing.T) {
	const (
		agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.55"
		busybox = "registry.k8s.io/e2e-test-images/busybox:1.37.0-2"
	)
	tests := []struct {
		name      string
		image     string
		cmd, args []string
		want      Program
	}{
		{"agnhost pause runs", agnhost, nil, []string{"pause"}, Program{}},
		{"agnhost test-webserver runs", agnhost, nil, []string{"test-webserver"}, Program{}},
		{"agnhost serve-hostname runs", agnhost, nil, []string{"serve-hostname"}, Program{}},
		{"image entrypoint runs", "registry.k8s.io/pause:3.10.2", nil, nil, Program{}},
		{"sleep seconds", busybox, []string{"sleep", "1000000"}, nil, Program{ExitAfter: 1000000 * time.Second}},
		{"sleep with a unit", busybox, []string{"/bin/sleep", "2m"}, nil, Program{ExitAfter: 2 * time.Minute}},
		{"sleep fraction", busybox, []string{"sleep", "0.5"}, nil, Program{ExitAfter: 500 * time.Millisecond}},
		{"sleep infinity", busybox, []string{"sleep", "infinity"}, nil, Program{}},
		{"sleep 0 exits", busybox, []string{"sleep", "0"}, nil, Program{ExitNow: true}},
		{"sleep garbage fails", busybox, []string{"sleep", "soon"}, nil, Program{ExitNow: true, ExitCode: 1}},
		{"sleep NaN fails", busybox, []string{"sleep", "NaN"}, nil, Program{ExitNow: true, ExitCode: 1}},
		{"true", busybox, []string{"true"}, nil, Program{ExitNow: true}},
		{"false", busybox, []string{"false"}, nil, Program{ExitNow: true, ExitCode: 1}},
		{"sh -c exit 1", busybox, []string{"/bin/sh", "-c", "exit 1"}, nil, Program{ExitNow: true, ExitCode: 1}},
		{"sh -c exit 0 in args", busybox, []string{"sh", "-c"}, []string{"exit 0;"}, Program{ExitNow: true}},
		{"sh -ec sleep", busybox, []string{"sh", "-ec", "sleep 15"}, nil, Program{ExitAfter: 15 * time.Second}},
		{"sh -c exit 300 wraps", busybox, []string{"sh", "-c", "exit 300"}, nil, Program{ExitNow: true, ExitCode: 44}},
		{"branching script runs", busybox, []string{"sh", "-c", "if [ -r /tmp/x ]; then exit 0; fi; exit 1"}, nil, Program{}},
		{"random exit runs", busybox, []string{"/bin/sh", "-c", "exit $(( $RANDOM / 16384 ))"}, nil, Program{}},
		{"shell without -c runs", busybox, []string{"sh"}, nil, Program{}},
		{"hello keeps its model", "orkit.local/hello:v1", []string{"/hello", "exit", "3"}, nil, Program{ExitNow: true, ExitCode: 3}},
		{"hello entrypoint elsewhere", "example.com/x:1", []string{"/hello", "exit", "4"}, nil, Program{ExitNow: true, ExitCode: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ImageProgram(cri.ContainerConfig{Image: cri.ImageSpec{Image: tt.image}, Command: tt.cmd, Args: tt.args})
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzImageProgram: any command line is modelled without a panic, and
// never as a negative delay.
func FuzzImageProgram(f *testing.F) {
	for _, s := range []string{"sleep 5", "exit 3", "sleep NaN", "sleep -1", "true", "if x; then y; fi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		p := ImageProgram(cri.ContainerConfig{Command: []string{"sh", "-c", script}})
		if p.ExitAfter < 0 {
			t.Fatalf("negative delay %v for %q", p.ExitAfter, script)
		}
	})
}

package fake

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/cri"
)

// TestHelloProgram: the simulated main process of a hello-tool command.
func TestHelloProgram(t *testing.T) {
	tests := []struct {
		name string
		cmd  []string
		want Program
	}{
		{"serve by default", nil, Program{}},
		{"exit code", []string{"/hello", "exit", "3"}, Program{ExitNow: true, ExitCode: 3}},
		{"rm-dir (local-path cleanup) succeeds at once", []string{"/hello", "rm-dir", "/data/pvc-1"}, Program{ExitNow: true}},
		{"unknown subcommand fails", []string{"/hello", "frobnicate"}, Program{ExitNow: true, ExitCode: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, helloProgram(cri.ContainerConfig{Command: tt.cmd}))
		})
	}
}

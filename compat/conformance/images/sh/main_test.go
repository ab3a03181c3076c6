package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestChoose(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      []string
		wantProg string
		wantArgv []string
	}{
		{"identifiers only: ash", []string{"/bin/sh", "-c", "echo hi"}, []string{"PATH=/bin", "KUBERNETES_PORT=tcp://x", "_x1=2"},
			busybox, []string{"/bin/sh", "-c", "echo hi"}},
		{"a dash in a name: bash", []string{"sh", "-c", "env"}, []string{"PATH=/bin", "data-1=value-1"},
			bash, []string{"sh", "-c", "env"}},
		{"a leading digit: bash", []string{"sh"}, []string{"1-data-1=v"}, bash, []string{"sh"}},
		{"a dot: bash", []string{"sh", "-c", "env"}, []string{"a.b=c"}, bash, []string{"sh", "-c", "env"}},
		{"no argv[0]", nil, nil, busybox, []string{"sh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, argv := choose(tt.args, tt.env)
			assert.Equal(t, tt.wantProg, prog)
			assert.Equal(t, tt.wantArgv, argv)
		})
	}
}

package kubelet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

func TestTerminationMessage(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	msg := file("msg", "DONE")
	empty := file("empty", "")
	big := file("big", strings.Repeat("a", 5000)+"END")
	logPath := file("log", "2026-11-27T10:00:00.000000000Z stdout F line1\n2026-11-27T10:00:00.100000000Z stdout P DONE\n")
	status := func(path, policy, hostPath string, exit int32) *cri.ContainerStatus {
		st := &cri.ContainerStatus{ID: "c1", State: cri.ContainerExited, ExitCode: exit, LogPath: logPath,
			Annotations: map[string]string{annotationTerminationMessagePath: path, annotationTerminationMessagePolicy: policy}}
		if hostPath != "" {
			st.Mounts = []cri.Mount{{ContainerPath: "/dev/termination-log", HostPath: hostPath}}
		}
		return st
	}
	const fallback = string(core.TerminationMessageFallbackToLogsOnError)
	tests := []struct {
		name string
		st   *cri.ContainerStatus
		want string
	}{
		{"from file", status("/dev/termination-log", "File", msg, 0), "DONE"},
		{"file wins over logs", status("/dev/termination-log", fallback, msg, 1), "DONE"},
		{"empty file, success: no fallback", status("/dev/termination-log", fallback, empty, 0), ""},
		{"empty file, failure: logs", status("/dev/termination-log", fallback, empty, 1), "line1\nDONE"},
		{"missing file, failure: logs", status("/dev/termination-log", fallback, filepath.Join(dir, "gone"), 2), "line1\nDONE"},
		{"empty file, File policy", status("/dev/termination-log", "File", empty, 1), ""},
		{"last 4 KiB of the file", status("/dev/termination-log", "File", big, 0), strings.Repeat("a", 4093) + "END"},
		{"no path", status("", fallback, "", 1), "line1\nDONE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, terminationMessage(context.Background(), tt.st))
		})
	}
	t.Run("appended to the runtime's message, read once", func(t *testing.T) {
		k := &Kubelet{}
		cs := &ctrState{}
		st := status("/dev/termination-log", "File", msg, 137)
		st.Reason, st.Message = cri.ReasonOOMKilled, "out of memory"
		assert.Equal(t, "out of memory: DONE", k.terminated(context.Background(), cs, st).Message)
		require.NoError(t, os.WriteFile(msg, []byte("CHANGED"), 0o644))
		assert.Equal(t, "out of memory: DONE", k.terminated(context.Background(), cs, st).Message)
	})
}

package kubelet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

// Annotations on a container's CRI config that say where its termination
// message is and how to fall back, read back from its status once it has
// exited (as the kubelet's io.kubernetes.container.* annotations).
const (
	annotationTerminationMessagePath   = "io.orkit.container.terminationMessagePath"
	annotationTerminationMessagePolicy = "io.orkit.container.terminationMessagePolicy"
)

// Bounds of a termination message, as in the kubelet: the last 4 KiB of
// the file, or the last 80 lines and 2 KiB of the log.
const (
	maxTerminationMessage         = 4 << 10
	maxTerminationMessageLogLines = 80
	maxTerminationMessageLog      = 2 << 10
)

// terminated is the terminated state of an exited container, its message
// enriched with the termination message (the file at its
// terminationMessagePath, or with FallbackToLogsOnError and a failure,
// the tail of its log). The message is read once per container ID and
// kept in cs.
func (k *Kubelet) terminated(ctx context.Context, cs *ctrState, st *cri.ContainerStatus) *core.ContainerStateTerminated {
	term := terminatedState(st)
	if cs == nil {
		return term
	}
	if cs.termMsgID != st.ID {
		cs.termMsgID, cs.termMsg = st.ID, terminationMessage(ctx, st)
	}
	if cs.termMsg != "" {
		if term.Message != "" {
			term.Message += ": "
		}
		term.Message += cs.termMsg
	}
	return term
}

// terminationMessage reads an exited container's termination message.
func terminationMessage(ctx context.Context, st *cri.ContainerStatus) string {
	path := st.Annotations[annotationTerminationMessagePath]
	fallback := core.TerminationMessagePolicy(st.Annotations[annotationTerminationMessagePolicy]) == core.TerminationMessageFallbackToLogsOnError &&
		st.ExitCode != 0 && st.Reason != "ContainerCannotRun"
	if path != "" {
		for _, m := range st.Mounts {
			if m.ContainerPath != path {
				continue
			}
			data, err := readTail(m.HostPath, maxTerminationMessage)
			switch {
			case errors.Is(err, os.ErrNotExist):
			case err != nil:
				return fmt.Sprintf("Error on reading termination log %s: %v", m.HostPath, err)
			case len(data) > 0 || !fallback:
				return string(data)
			}
			break
		}
	}
	if !fallback || st.LogPath == "" {
		return ""
	}
	var buf bytes.Buffer
	lines := int64(maxTerminationMessageLogLines)
	if err := copyCRILog(ctx, st.LogPath, core.PodLogOptions{TailLines: &lines}, &buf, nil); err != nil {
		return fmt.Sprintf("Error on reading termination message from logs: %v", err)
	}
	b := buf.Bytes()
	if len(b) > maxTerminationMessageLog {
		b = b[len(b)-maxTerminationMessageLog:]
	}
	return string(b)
}

// readTail reads at most the last n bytes of the file at path.
func readTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > n {
		if _, err := f.Seek(fi.Size()-n, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n))
}

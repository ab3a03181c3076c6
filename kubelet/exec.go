package kubelet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
)

// execCloseWait is how long a finished exec session waits for the
// client's reply to its close message before dropping the connection.
const execCloseWait = 5 * time.Second

// serveExec serves /exec/{ns}/{pod}/{container}: it checks the request,
// upgrades it to a WebSocket speaking the v5 (or v4, or v1) channel protocol and
// runs the command in the container through the runtime until it exits.
// Errors before the upgrade are meta Status JSON, as the API server
// passes them on to the client.
func (k *Kubelet) serveExec(w http.ResponseWriter, r *http.Request, ns, name, container string) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		writeStatus(w, apierrors.NewMethodNotSupported(meta.GroupResource{Resource: "pods"}, strings.ToLower(r.Method)))
		return
	}
	opts, err := core.ParseKubeletExecQuery(r.URL.Query())
	if err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	id, status := k.runningContainer(r.Context(), ns, name, container)
	if status != nil {
		writeStatus(w, status)
		return
	}
	protocol := negotiateProtocol(websocket.Subprotocols(r))
	if !websocket.IsWebSocketUpgrade(r) || protocol == "" {
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf(
			"exec needs a WebSocket upgrade with subprotocol %s or %s (SPDY is not supported)", ProtocolV5, ProtocolV4)))
		return
	}
	up := websocket.Upgrader{Subprotocols: []string{protocol}, HandshakeTimeout: 10 * time.Second,
		// Only the API server reaches this endpoint (client certificate);
		// browsers' Origin rules do not apply.
		CheckOrigin: func(*http.Request) bool { return true }}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the client
	}
	k.runExecSession(r.Context(), &wsConn{conn: conn, protocol: protocol}, id, opts)
}

// runningContainer finds the running container of a pod this kubelet
// runs, or the Status to answer with.
func (k *Kubelet) runningContainer(ctx context.Context, ns, name, container string) (string, *meta.Status) {
	pod := k.podByName(ns, name)
	if pod == nil {
		return "", apierrors.NewNotFound(meta.GroupResource{Resource: "pods"}, name)
	}
	if !hasContainer(pod, container) {
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, name))
	}
	ctrs, err := k.cfg.Runtime.ListContainers(ctx, cri.ContainerFilter{State: cri.ContainerRunning,
		LabelSelector: map[string]string{labelPodUID: string(pod.UID), labelContainerName: container}})
	if err != nil {
		return "", apierrors.NewInternalError(fmt.Errorf("list containers of pod %s: %w", name, err))
	}
	if len(ctrs) == 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s in pod %s is not running", container, name))
	}
	return ctrs[len(ctrs)-1].ID, nil
}

// runExecSession runs one exec over an upgraded connection (runSession).
func (k *Kubelet) runExecSession(ctx context.Context, c *wsConn, containerID string, o core.PodExecOptions) {
	streams := sessionStreams{stdin: o.Stdin, stdout: o.Stdout, stderr: o.Stderr, tty: o.TTY}
	k.runSession(ctx, c, containerID, streams, func(ctx context.Context, sio sessionIO) *meta.Status {
		code, err := k.cfg.Runtime.Exec(ctx, containerID, cri.ExecRequest{Cmd: o.Command, TTY: o.TTY,
			Stdin: sio.stdin, Stdout: sio.stdout, Stderr: sio.stderr, Resize: sio.resize})
		return execStatus(o.Command, code, err)
	})
}

// sessionStreams are the streams a client asked for.
type sessionStreams struct {
	stdin, stdout, stderr, tty bool
}

// sessionIO are a session's streams as the runtime takes them (nil: not
// asked for).
type sessionIO struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	resize <-chan cri.TerminalSize
}

// runSession runs one streaming session (exec, attach) over an upgraded
// connection: client messages feed stdin and resizes; output goes to the
// output channels; run's Status goes to the error channel; then the
// connection is closed normally. A connection that fails before run
// returns cancels run's context.
func (k *Kubelet) runSession(ctx context.Context, c *wsConn, containerID string, o sessionStreams,
	run func(context.Context, sessionIO) *meta.Status) {
	defer c.conn.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sio sessionIO
	var stdinR *io.PipeReader
	var stdinW *io.PipeWriter
	if o.stdin {
		stdinR, stdinW = io.Pipe()
		sio.stdin = stdinR
	}
	if o.stdout {
		sio.stdout = channelWriter{c: c, ch: chanStdout}
	}
	if o.stderr && !o.tty {
		sio.stderr = channelWriter{c: c, ch: chanStderr}
	}
	var sizes chan cri.TerminalSize
	if o.tty {
		sizes = make(chan cri.TerminalSize, 1)
		sio.resize = sizes
	}
	if err := c.writeChannel(lowestOutputChannel(o.stdout, o.stderr && !o.tty), nil); err != nil {
		return
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		err := c.readLoop(stdinW, sizes, func(err error) { k.cfg.Logger.Info("stream session", "container", containerID, "err", err) })
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure {
			cancel() // the client is gone: stop the command
		}
	}()
	status := run(ctx, sio)
	if stdinR != nil {
		stdinR.Close() // unblocks a readLoop waiting for the process to read
	}
	if ctx.Err() == nil {
		if c.protocol == ProtocolV1 {
			if status != nil && status.Status != meta.StatusSuccess {
				c.writeChannel(chanError, []byte(status.Message))
			}
		} else if b, merr := json.Marshal(status); merr == nil {
			c.writeChannel(chanError, b)
		}
		c.closeNormally()
	}
	t := time.NewTimer(execCloseWait)
	defer t.Stop()
	select {
	case <-readDone:
	case <-t.C:
	}
	c.conn.Close()
	<-readDone
}

// execStatus is the Status the error channel carries, as Kubernetes'
// kubelet words it: Success; Failure with reason NonZeroExitCode and the
// code as an ExitCode cause; or an internal error.
func execStatus(cmd []string, code int32, err error) *meta.Status {
	switch {
	case err != nil:
		return apierrors.NewInternalError(fmt.Errorf("error executing command in container: %w", err))
	case code == 0:
		return &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess}
	}
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusFailure,
		Reason:   "NonZeroExitCode",
		Message:  fmt.Sprintf("command terminated with non-zero exit code: command %q exited with %d", cmd, code),
		Details:  &meta.StatusDetails{Causes: []meta.StatusCause{{Type: "ExitCode", Message: strconv.Itoa(int(code))}}},
	}
}

// writeStatus answers with s as JSON and its code.
func writeStatus(w http.ResponseWriter, s *meta.Status) {
	w.Header().Set("Content-Type", "application/json")
	code := int(s.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(s)
}

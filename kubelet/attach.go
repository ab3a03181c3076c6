package kubelet

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
)

// serveAttach serves /attach/{ns}/{pod}/{container}: like exec, over the
// v5 (or v4) channel protocol, but joined to the container's main process
// (cri.Attacher) until it exits or the client goes. The final Status is
// Success, or the runtime's error.
func (k *Kubelet) serveAttach(w http.ResponseWriter, r *http.Request, ns, name, container string) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		writeStatus(w, apierrors.NewMethodNotSupported(meta.GroupResource{Resource: "pods"}, strings.ToLower(r.Method)))
		return
	}
	opts, err := core.ParseKubeletAttachQuery(r.URL.Query())
	if err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	attacher, ok := k.cfg.Runtime.(cri.Attacher)
	if !ok {
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf("the container runtime of node %s does not support attach", k.cfg.NodeName)))
		return
	}
	id, status := k.runningContainer(r.Context(), ns, name, container)
	if status != nil {
		if status.Code == http.StatusBadRequest && strings.HasSuffix(status.Message, "is not running") {
			// The kubelet looks among running containers only.
			status = apierrors.NewNotFound(meta.GroupResource{Resource: "containers"}, container)
			status.Message = fmt.Sprintf("container %s not found in pod %s_%s", container, name, ns)
		}
		writeStatus(w, status)
		return
	}
	protocol := negotiateProtocol(websocket.Subprotocols(r))
	if !websocket.IsWebSocketUpgrade(r) || protocol == "" {
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf(
			"attach needs a WebSocket upgrade with subprotocol %s or %s (SPDY is not supported)", ProtocolV5, ProtocolV4)))
		return
	}
	up := websocket.Upgrader{Subprotocols: []string{protocol}, HandshakeTimeout: 10 * time.Second,
		CheckOrigin: func(*http.Request) bool { return true }} // only the API server reaches this endpoint
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	streams := sessionStreams{stdin: opts.Stdin, stdout: opts.Stdout, stderr: opts.Stderr, tty: opts.TTY}
	k.runSession(r.Context(), &wsConn{conn: conn, protocol: protocol}, id, streams, func(ctx context.Context, sio sessionIO) *meta.Status {
		err := attacher.Attach(ctx, id, cri.AttachRequest{Stdin: sio.stdin, Stdout: sio.stdout, Stderr: sio.stderr, Resize: sio.resize})
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("error attaching to container: %w", err))
		}
		return &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess}
	})
}

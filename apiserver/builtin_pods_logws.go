package apiserver

import (
	"bufio"
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/orkit/orkit/api/core"
)

// The protocols pods/log speaks to a WebSocket client, as kube-apiserver
// does: every chunk of the log is one message, the raw bytes as a binary
// message (binary.k8s.io, also when the client names no protocol) or
// base64 text (base64.binary.k8s.io, for browsers). The server closes the
// connection with a normal closure when the log ends.
const (
	logProtocolBinary = "binary.k8s.io"
	logProtocolBase64 = "base64.binary.k8s.io"
)

// logWriteTimeout bounds one message to a WebSocket log client.
const logWriteTimeout = 30 * time.Second

// logUpgrader upgrades pods/log requests. Origins are not checked: the
// request is authenticated and authorized like any other, by its
// credentials, not by cookies.
var logUpgrader = websocket.Upgrader{
	Subprotocols: []string{logProtocolBinary, logProtocolBase64},
	CheckOrigin:  func(*http.Request) bool { return true },
}

// servePodLogWebSocket streams container opts.Container's log of pod to
// the WebSocket client of r. It owns one goroutine, which reads (and
// drops) what the client sends so that the client's close ends the
// stream; it returns once that goroutine has stopped.
func (s *Server) servePodLogWebSocket(ctx context.Context, w http.ResponseWriter, r *http.Request, pod *core.Pod, opts core.PodLogOptions) {
	conn, err := logUpgrader.Upgrade(hijacker{w}, r, nil)
	if err != nil {
		return // Upgrade answered the client with the reason
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	lw := &wsLogWriter{conn: conn, base64: conn.Subprotocol() == logProtocolBase64}
	err = s.kubelet.Logs(ctx, pod, opts, lw)
	closing := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	if err != nil && ctx.Err() == nil {
		closing = websocket.FormatCloseMessage(websocket.CloseInternalServerErr, truncateCloseReason(err.Error()))
	}
	_ = conn.WriteControl(websocket.CloseMessage, closing, time.Now().Add(time.Second))
	cancel()
	conn.Close()
	<-done
}

// truncateCloseReason keeps a close frame's reason within the 123 bytes
// the protocol allows.
func truncateCloseReason(s string) string {
	if len(s) > 120 {
		return s[:120]
	}
	return s
}

// hijacker hands the connection to the WebSocket upgrader through
// http.ResponseController, which finds it under the server's wrappers.
type hijacker struct{ http.ResponseWriter }

func (h hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}

// wsLogWriter writes each chunk of a log as one WebSocket message.
type wsLogWriter struct {
	conn   *websocket.Conn
	base64 bool
}

func (l *wsLogWriter) Write(b []byte) (int, error) {
	if err := l.conn.SetWriteDeadline(time.Now().Add(logWriteTimeout)); err != nil {
		return 0, err
	}
	kind, msg := websocket.BinaryMessage, b
	if l.base64 {
		kind, msg = websocket.TextMessage, []byte(base64.StdEncoding.EncodeToString(b))
	}
	if err := l.conn.WriteMessage(kind, msg); err != nil {
		return 0, err
	}
	return len(b), nil
}

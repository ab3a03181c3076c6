package kubelet

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/orkit/orkit/cri"
)

// The remote command channel protocols over WebSocket (KEP 4006) that the
// exec endpoint speaks. Every binary message starts with a channel byte:
// 0 stdin, 1 stdout, 2 stderr, 3 error (the final meta Status as JSON),
// 4 resize (a JSON {"Width":W,"Height":H}). v5 adds the close signal: a
// message {255, channel} from the client half-closes that channel (stdin
// EOF). kubectl 1.32 asks for v5 only; v4 is accepted for older clients.
// The original channel.k8s.io (v1, what the conformance suite's websocket
// clients ask for) has the same channels, but its error channel carries
// only a failure's message as text and nothing on success.
const (
	ProtocolV5 = "v5.channel.k8s.io"
	ProtocolV4 = "v4.channel.k8s.io"
	ProtocolV1 = "channel.k8s.io"
)

// Channel numbers of the remote command protocols.
const (
	chanStdin  byte = 0
	chanStdout byte = 1
	chanStderr byte = 2
	chanError  byte = 3
	chanResize byte = 4
	chanClose  byte = 255
)

// maxExecMessage bounds one message from the client (client-go writes
// stdin in chunks of at most 32 KiB; a resize is a few bytes).
const maxExecMessage = 1 << 20

// maxResizeMessage bounds a resize payload.
const maxResizeMessage = 1 << 10

// execWriteTimeout bounds one write to the client.
const execWriteTimeout = 60 * time.Second

// frameKind is what a client message means.
type frameKind int

const (
	frameStdin      frameKind = iota + 1 // data for the process's stdin
	frameResize                          // a terminal size
	frameCloseStdin                      // v5: the client finished stdin
	frameIgnored                         // a channel the server does not read
)

// clientFrame is one decoded message from the client.
type clientFrame struct {
	kind frameKind
	data []byte // frameStdin: the data (aliases the message)
	size cri.TerminalSize
}

// parseClientMessage decodes one binary message from the client under
// the negotiated protocol. Errors wrap ErrExecProtocol: an empty or
// oversized message, a malformed resize or close signal.
func parseClientMessage(protocol string, msg []byte) (clientFrame, error) {
	if len(msg) == 0 {
		return clientFrame{}, fmt.Errorf("%w: empty message (no channel byte)", ErrExecProtocol)
	}
	if len(msg) > maxExecMessage {
		return clientFrame{}, fmt.Errorf("%w: message of %d bytes exceeds %d", ErrExecProtocol, len(msg), maxExecMessage)
	}
	ch, payload := msg[0], msg[1:]
	switch {
	case ch == chanStdin:
		return clientFrame{kind: frameStdin, data: payload}, nil
	case ch == chanResize:
		size, err := parseResize(payload)
		if err != nil {
			return clientFrame{}, err
		}
		return clientFrame{kind: frameResize, size: size}, nil
	case ch == chanClose && protocol == ProtocolV5:
		if len(payload) != 1 {
			return clientFrame{}, fmt.Errorf("%w: close signal with %d channel bytes, want 1", ErrExecProtocol, len(payload))
		}
		if payload[0] == chanStdin {
			return clientFrame{kind: frameCloseStdin}, nil
		}
		return clientFrame{kind: frameIgnored}, nil
	default:
		// Output channels and unknown ones: the client has no business
		// writing there; client-go likewise discards unknown channels.
		return clientFrame{kind: frameIgnored}, nil
	}
}

// parseResize decodes a resize payload: {"Width":W,"Height":H}, both in
// 0..65535.
func parseResize(b []byte) (cri.TerminalSize, error) {
	if len(b) > maxResizeMessage {
		return cri.TerminalSize{}, fmt.Errorf("%w: resize of %d bytes", ErrExecProtocol, len(b))
	}
	var size struct {
		Width  *uint16
		Height *uint16
	}
	if err := json.Unmarshal(b, &size); err != nil {
		return cri.TerminalSize{}, fmt.Errorf("%w: bad resize %q: %w", ErrExecProtocol, clip(b, 64), err)
	}
	if size.Width == nil || size.Height == nil {
		return cri.TerminalSize{}, fmt.Errorf("%w: resize %q lacks Width or Height", ErrExecProtocol, clip(b, 64))
	}
	return cri.TerminalSize{Width: *size.Width, Height: *size.Height}, nil
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// negotiateProtocol picks the protocol the server speaks from the
// client's offer (Sec-WebSocket-Protocol), preferring the client's order,
// or "" when there is none in common.
func negotiateProtocol(offered []string) string {
	for _, p := range offered {
		if p == ProtocolV5 || p == ProtocolV4 || p == ProtocolV1 {
			return p
		}
	}
	return ""
}

// wsConn is the server side of one exec WebSocket: writes from several
// goroutines are serialized; reads belong to one goroutine.
type wsConn struct {
	conn     *websocket.Conn
	protocol string

	mu sync.Mutex // serializes writes
}

// writeChannel sends p on channel ch as one binary message.
func (c *wsConn) writeChannel(ch byte, p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.conn.SetWriteDeadline(time.Now().Add(execWriteTimeout)); err != nil {
		return err
	}
	w, err := c.conn.NextWriter(websocket.BinaryMessage)
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte{ch}); err != nil {
		w.Close()
		return err
	}
	if _, err := w.Write(p); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// channelWriter is an io.Writer onto one output channel.
type channelWriter struct {
	c  *wsConn
	ch byte
}

// Write sends p as one message; it reports all of p written or an error.
func (w channelWriter) Write(p []byte) (int, error) {
	if err := w.c.writeChannel(w.ch, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// closeNormally sends a normal close, so the client's streams end with EOF.
func (c *wsConn) closeNormally() error {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	return c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second))
}

// readLoop reads client messages until the connection fails or closes,
// feeding stdin (nil: no stdin was asked for) and sizes (nil: no TTY).
// Stdin is closed at the v5 close signal, or when the connection ends.
// Malformed messages are reported to bad and skipped. readLoop returns
// the error that ended it (a *websocket.CloseError when the client closed).
func (c *wsConn) readLoop(stdin *io.PipeWriter, sizes chan cri.TerminalSize, bad func(error)) error {
	c.conn.SetReadLimit(maxExecMessage + 1)
	for {
		typ, msg, err := c.conn.ReadMessage()
		if err != nil {
			if stdin != nil {
				stdin.CloseWithError(io.EOF)
			}
			return err
		}
		if typ != websocket.BinaryMessage {
			bad(fmt.Errorf("%w: message type %d, want binary", ErrExecProtocol, typ))
			continue
		}
		f, err := parseClientMessage(c.protocol, msg)
		if err != nil {
			bad(err)
			continue
		}
		switch f.kind {
		case frameStdin:
			if stdin != nil && len(f.data) > 0 {
				// Blocks until the process has read it: flow control.
				stdin.Write(f.data)
			}
		case frameCloseStdin:
			if stdin != nil {
				stdin.Close()
			}
		case frameResize:
			if sizes != nil {
				sendLatest(sizes, f.size)
			}
		}
	}
}

// sendLatest puts s on a one-slot channel, replacing a size not yet taken.
func sendLatest(ch chan cri.TerminalSize, s cri.TerminalSize) {
	for {
		select {
		case ch <- s:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// lowestOutputChannel is where the server sends its first, empty message
// (as the kubelet does) so the client knows the streams are up.
func lowestOutputChannel(stdout, stderr bool) byte {
	switch {
	case stdout:
		return chanStdout
	case stderr:
		return chanStderr
	default:
		return chanError
	}
}

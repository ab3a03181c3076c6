package kubelet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/kubelet/spdy"
)

// ProtocolPortForwardTunnel is the WebSocket subprotocol kubectl 1.31+
// offers for port-forward: a SPDY/3.1 connection speaking
// portforward.k8s.io, tunnelled through the WebSocket's binary messages.
const ProtocolPortForwardTunnel = "SPDY/3.1+portforward.k8s.io"

// The stream headers of the portforward.k8s.io protocol: each forwarded
// connection is a pair of streams with the same requestID and port, one
// of streamType "error" (the server writes a message there when the
// forwarding fails) and one of streamType "data".
const (
	pfHeaderStreamType = "streamType"
	pfHeaderPort       = "port"
	pfHeaderRequestID  = "requestID"
	pfStreamError      = "error"
	pfStreamData       = "data"
)

// pfPairTimeout is how long the first stream of a pair waits for the
// second (the kubelet's stream creation timeout).
const pfPairTimeout = 30 * time.Second

// pfDialTimeout bounds the connection to the pod's port.
const pfDialTimeout = 10 * time.Second

// servePortForward serves /portForward/{ns}/{pod}: it finds the pod's
// sandbox network namespace, upgrades the request to a WebSocket that
// tunnels SPDY (ProtocolPortForwardTunnel), and forwards each stream pair
// to the port inside the pod's network namespace until the client goes.
// Errors before the upgrade are Status JSON, as for exec.
func (k *Kubelet) servePortForward(w http.ResponseWriter, r *http.Request, ns, name string) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		writeStatus(w, apierrors.NewMethodNotSupported(meta.GroupResource{Resource: "pods"}, strings.ToLower(r.Method)))
		return
	}
	sandboxID, netnsPath, status := k.podSandboxNetwork(r.Context(), ns, name)
	if status != nil {
		writeStatus(w, status)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) || !offers(websocket.Subprotocols(r), ProtocolPortForwardTunnel) {
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf(
			"port forwarding needs a WebSocket upgrade with subprotocol %s (SPDY is not supported)", ProtocolPortForwardTunnel)))
		return
	}
	up := websocket.Upgrader{Subprotocols: []string{ProtocolPortForwardTunnel}, HandshakeTimeout: 10 * time.Second,
		CheckOrigin: func(*http.Request) bool { return true }} // only the API server reaches this endpoint
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the client
	}
	f := &portForwarder{k: k, sandboxID: sandboxID, netns: netnsPath, pairs: map[string]*pfPair{}}
	conn := spdy.NewConn(&wsTunnel{conn: ws})
	if err := conn.Serve(r.Context(), f.accept); err != nil {
		k.cfg.Logger.Info("port-forward connection", "pod", ns+"/"+name, "err", err)
	}
	f.stop()
}

func offers(protocols []string, want string) bool {
	for _, p := range protocols {
		if p == want {
			return true
		}
	}
	return false
}

// podSandboxNetwork finds the ready sandbox of a pod this kubelet runs and its
// network namespace, or the Status to answer with.
func (k *Kubelet) podSandboxNetwork(ctx context.Context, ns, name string) (string, string, *meta.Status) {
	pod := k.podByName(ns, name)
	if pod == nil {
		return "", "", apierrors.NewNotFound(meta.GroupResource{Resource: "pods"}, name)
	}
	sbs, err := k.cfg.Runtime.ListPodSandbox(ctx, cri.PodSandboxFilter{State: cri.SandboxReady,
		LabelSelector: map[string]string{labelPodUID: string(pod.UID)}})
	if err != nil {
		return "", "", apierrors.NewInternalError(fmt.Errorf("list sandboxes of pod %s: %w", name, err))
	}
	if len(sbs) == 0 {
		return "", "", apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a running sandbox", name))
	}
	id := sbs[len(sbs)-1].ID
	st, err := k.cfg.Runtime.PodSandboxStatus(ctx, id)
	if err != nil {
		return "", "", apierrors.NewInternalError(fmt.Errorf("status of sandbox of pod %s: %w", name, err))
	}
	if st.NetworkNamespacePath == "" && !pod.Spec.HostNetwork {
		return "", "", apierrors.NewBadRequest(fmt.Sprintf("pod %s: its runtime gives no network namespace to forward ports in", name))
	}
	return id, st.NetworkNamespacePath, nil
}

// portForwarder pairs the streams of one port-forward connection and
// forwards each pair. It owns the forwarding goroutines; stop waits for
// them (they end when the connection's streams fail).
type portForwarder struct {
	k         *Kubelet
	sandboxID string
	netns     string // "": the node's own (host network)

	mu    sync.Mutex
	pairs map[string]*pfPair
	wg    sync.WaitGroup
}

// pfPair is the error and data stream of one forwarded connection.
type pfPair struct {
	port  int32
	err   *spdy.Stream
	data  *spdy.Stream
	timer *time.Timer
}

// accept takes a stream the client opened (on the connection's reading
// goroutine: it must not block).
func (f *portForwarder) accept(st *spdy.Stream) {
	typ, port, id, err := parsePortForwardHeaders(st.Headers())
	if err != nil {
		f.k.cfg.Logger.Info("port-forward stream", "err", err)
		st.Reset()
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pairs[id]
	if p == nil {
		p = &pfPair{port: port}
		f.pairs[id] = p
		p.timer = time.AfterFunc(pfPairTimeout, func() { f.expire(id, p) })
	}
	slot := &p.data
	if typ == pfStreamError {
		slot = &p.err
	}
	if *slot != nil || p.port != port {
		f.k.cfg.Logger.Info("port-forward stream", "err", fmt.Sprintf("request %s: duplicate %s stream or port mismatch", id, typ))
		st.Reset()
		return
	}
	*slot = st
	if p.err != nil && p.data != nil {
		p.timer.Stop()
		delete(f.pairs, id)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.forward(p)
		}()
	}
}

// expire resets the streams of a pair whose other half never came.
func (f *portForwarder) expire(id string, p *pfPair) {
	f.mu.Lock()
	if f.pairs[id] != p {
		f.mu.Unlock()
		return
	}
	delete(f.pairs, id)
	f.mu.Unlock()
	for _, st := range []*spdy.Stream{p.err, p.data} {
		if st != nil {
			st.Reset()
		}
	}
}

// stop ends pending pairs and waits for the forwarding goroutines.
func (f *portForwarder) stop() {
	f.mu.Lock()
	for id, p := range f.pairs {
		p.timer.Stop()
		delete(f.pairs, id)
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// parsePortForwardHeaders reads a stream's type, port and request ID,
// with the kubelet's messages for bad ones.
func parsePortForwardHeaders(h http.Header) (typ string, port int32, id string, err error) {
	typ = h.Get(pfHeaderStreamType)
	if typ != pfStreamError && typ != pfStreamData {
		return "", 0, "", fmt.Errorf("invalid stream type %q", typ)
	}
	ps := h.Get(pfHeaderPort)
	if ps == "" {
		return "", 0, "", fmt.Errorf("%q header is required", pfHeaderPort)
	}
	p, perr := strconv.ParseUint(ps, 10, 16)
	if perr != nil || p == 0 {
		return "", 0, "", fmt.Errorf("unable to parse %q as a port: %v", ps, perr)
	}
	id = h.Get(pfHeaderRequestID)
	if id == "" {
		return "", 0, "", fmt.Errorf("%q header is required", pfHeaderRequestID)
	}
	return typ, int32(p), id, nil
}

// forward connects to the pair's port in the pod and copies both ways.
// A failure to connect is written to the error stream in the kubelet's
// words; both streams are closed when the pod's side ends.
func (f *portForwarder) forward(p *pfPair) {
	defer p.err.Close()
	defer p.data.Close()
	ctx, cancel := context.WithTimeout(context.Background(), pfDialTimeout)
	conn, err := dialPodPort(ctx, f.netns, p.port)
	cancel()
	if err != nil {
		fmt.Fprintf(p.err, "error forwarding port %d to pod %s, uid : %v", p.port, f.sandboxID, err)
		return
	}
	defer conn.Close()
	toPod := make(chan struct{})
	go func() { // owned by forward: it waits below
		defer close(toPod)
		if _, err := io.Copy(conn, p.data); err != nil {
			// The stream was reset or the connection is gone: end the
			// copy from the pod too, which may be waiting for data.
			conn.Close()
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	io.Copy(p.data, conn)
	p.data.Close()
	// The client half-closes the data stream when its side ends; a client
	// that keeps it open while the pod has closed loses nothing by a reset.
	select {
	case <-toPod:
	case <-time.After(pfPairTimeout):
		p.data.Reset()
		<-toPod
	}
}

// wsTunnel is a byte stream over a WebSocket's binary messages: each
// Write is one message, Read reads messages in turn (the tunnelling that
// client-go's SPDY-over-WebSocket dialer does on its side). Writes are
// serialized by the SPDY connection; reads belong to its reader.
type wsTunnel struct {
	conn *websocket.Conn
	cur  io.Reader
}

// Read reads from the current binary message, moving to the next at its
// end; text messages are skipped. A normal close from the peer reads as
// io.EOF.
func (t *wsTunnel) Read(p []byte) (int, error) {
	for {
		if t.cur == nil {
			typ, r, err := t.conn.NextReader()
			if err != nil {
				if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) {
					return 0, io.EOF
				}
				return 0, err
			}
			if typ != websocket.BinaryMessage {
				continue
			}
			t.cur = r
		}
		n, err := t.cur.Read(p)
		if err == io.EOF {
			t.cur = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

// Write sends p as one binary message.
func (t *wsTunnel) Write(p []byte) (int, error) {
	if err := t.conn.SetWriteDeadline(time.Now().Add(execWriteTimeout)); err != nil {
		return 0, err
	}
	if err := t.conn.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close sends a normal close (best effort) and closes the connection.
func (t *wsTunnel) Close() error {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	t.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
	return t.conn.Close()
}

package kubeletclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/testkubelet"
	"github.com/orkit/orkit/pki"
)

// fakeKubelet is a kubelet endpoint (testkubelet) that records what
// reached it.
type fakeKubelet struct {
	*testkubelet.Kubelet
	mu   sync.Mutex
	reqs []*http.Request
}

func newFakeKubelet(t *testing.T, ca *pki.CA, h http.HandlerFunc) *fakeKubelet {
	t.Helper()
	fk := &fakeKubelet{}
	fk.Kubelet = testkubelet.Start(t, ca, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fk.mu.Lock()
		fk.reqs = append(fk.reqs, r.Clone(context.Background()))
		fk.mu.Unlock()
		h(w, r)
	}))
	return fk
}

func (fk *fakeKubelet) requests() []*http.Request {
	fk.mu.Lock()
	defer fk.mu.Unlock()
	return append([]*http.Request(nil), fk.reqs...)
}

// testNode is node n1 with an InternalIP and the given kubelet port.
func testNode(addr string, port int32) *core.Node {
	n := &core.Node{ObjectMeta: meta.ObjectMeta{Name: "n1"}}
	if addr != "" {
		n.Status.Addresses = []core.NodeAddress{{Type: core.NodeInternalIP, Address: addr}}
	}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = port
	return n
}

func nodes(ns ...*core.Node) NodeGetterFunc {
	return func(_ context.Context, name string) (*core.Node, error) {
		for _, n := range ns {
			if n.Name == name {
				return n, nil
			}
		}
		return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "nodes"}, name)
	}
}

func testCA(t *testing.T) (*pki.CA, Config) {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	require.NoError(t, err)
	kp, err := ca.IssueClient(testkubelet.ClientCN)
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	return ca, Config{ClientCert: &cert, RootCAs: ca.Pool()}
}

func testPod() *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "team"}, Spec: core.PodSpec{NodeName: "n1"}}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int32 {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return int32(port)
}

func TestLocation(t *testing.T) {
	addrs := []core.NodeAddress{{Type: core.NodeHostName, Address: "n1.local"}, {Type: core.NodeExternalIP, Address: "203.0.113.1"},
		{Type: core.NodeInternalIP, Address: "10.0.0.1"}}
	node := func(as []core.NodeAddress, port int32) *core.Node {
		n := testNode("", port)
		n.Status.Addresses = as
		return n
	}
	tests := []struct {
		name      string
		node      *core.Node
		preferred []core.NodeAddressType
		want      string
		wantErr   string
	}{
		{"InternalIP first by default", node(addrs, 10250), nil, "https://10.0.0.1:10250/exec/team/web/app?command=x", ""},
		{"configured order", node(addrs, 10250), []core.NodeAddressType{core.NodeHostName, core.NodeInternalIP},
			"https://n1.local:10250/exec/team/web/app?command=x", ""},
		{"falls back to a later type", node(addrs[:1], 10250), nil, "https://n1.local:10250/exec/team/web/app?command=x", ""},
		{"IPv6 address", node([]core.NodeAddress{{Type: core.NodeInternalIP, Address: "fd00::1"}}, 10250), nil,
			"https://[fd00::1]:10250/exec/team/web/app?command=x", ""},
		{"no port", node(addrs, 0), nil, "", `node "n1" has no kubelet endpoint`},
		{"no address of a preferred type", node(addrs[:2], 10250), []core.NodeAddressType{core.NodeInternalIP}, "",
			`node "n1" has no kubelet endpoint`},
		{"no such node", &core.Node{ObjectMeta: meta.ObjectMeta{Name: "other"}}, nil, "", `nodes "n1" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Config{PreferredAddressTypes: tt.preferred}, nodes(tt.node))
			u, err := c.Location(context.Background(), "n1", podPath("exec", testPod(), "app"), url.Values{"command": {"x"}})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, apierrors.FromError(err).Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, u.String())
		})
	}
}

func TestLogs(t *testing.T) {
	ca, cfg := testCA(t)
	fk := newFakeKubelet(t, ca, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/containerLogs/team/web/app":
			io.WriteString(w, "line 1\nline 2\n")
		case "/containerLogs/team/web/gone":
			http.Error(w, `container "gone" of pod team/web has no logs`, http.StatusNotFound)
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	})
	c := New(cfg, nodes(testNode("127.0.0.1", fk.Port)))
	ctx := context.Background()

	var b bytes.Buffer
	opts := core.PodLogOptions{Container: "app", Follow: true, TailLines: new(int64)}
	require.NoError(t, c.Logs(ctx, testPod(), opts, &b))
	assert.Equal(t, "line 1\nline 2\n", b.String())
	reqs := fk.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, http.MethodGet, reqs[0].Method)
	assert.Equal(t, url.Values{"follow": {"true"}, "tailLines": {"0"}}, reqs[0].URL.Query(), "the container is in the path")

	err := c.Logs(ctx, testPod(), core.PodLogOptions{Container: "gone"}, io.Discard)
	require.True(t, apierrors.IsBadRequest(err), "%v", err)
	assert.Equal(t, `container "gone" of pod team/web has no logs`, apierrors.FromError(err).Message, "the kubelet's own words")

	err = c.Logs(ctx, testPod(), core.PodLogOptions{Container: "other"}, io.Discard)
	require.True(t, apierrors.IsBadRequest(err), "%v", err)
	assert.Equal(t, `kubelet of node "n1": 500 Internal Server Error: boom`, apierrors.FromError(err).Message)

	down := New(cfg, nodes(testNode("127.0.0.1", closedPort(t))))
	err = down.Logs(ctx, testPod(), core.PodLogOptions{Container: "app"}, io.Discard)
	require.True(t, apierrors.IsBadRequest(err), "%v", err)
	assert.Contains(t, apierrors.FromError(err).Message, `reach kubelet of node "n1"`)

	anonymous := New(Config{RootCAs: ca.Pool()}, nodes(testNode("127.0.0.1", fk.Port)))
	err = anonymous.Logs(ctx, testPod(), core.PodLogOptions{Container: "app"}, io.Discard)
	assert.Error(t, err, "a kubelet refuses a server without a client certificate")
	untrusted := New(Config{ClientCert: cfg.ClientCert}, nodes(testNode("127.0.0.1", fk.Port)))
	err = untrusted.Logs(ctx, testPod(), core.PodLogOptions{Container: "app"}, io.Discard)
	require.Error(t, err, "a kubelet whose serving certificate RootCAs does not verify is not trusted")
	assert.Contains(t, err.Error(), "certificate")
	c.CloseIdleConnections()
}

// execFrontend serves Client.Exec as the API server does after its
// checks, answering with the error Exec returns.
func execFrontend(t *testing.T, c *Client, opts core.PodExecOptions) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := c.Exec(r.Context(), testPod(), opts, w, r); err != nil {
			st := apierrors.FromError(err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(int(st.Code))
			json.NewEncoder(w).Encode(st)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestExecUpgrade(t *testing.T) {
	ca, cfg := testCA(t)
	fk := newFakeKubelet(t, ca, func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{Subprotocols: []string{"v5.channel.k8s.io"}}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			typ, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if err := conn.WriteMessage(typ, append([]byte("echo "), msg...)); err != nil {
				return
			}
		}
	})
	c := New(cfg, nodes(testNode("127.0.0.1", fk.Port)))
	opts := core.PodExecOptions{Container: "app", Command: []string{"/hello", "cat", "-"}, Stdin: true, Stdout: true}
	front := execFrontend(t, c, opts)

	d := websocket.Dialer{Subprotocols: []string{"v5.channel.k8s.io"}}
	hdr := http.Header{"Authorization": {"Bearer secret-of-the-caller"}, "Impersonate-User": {"someone"}}
	conn, resp, err := d.Dial(strings.Replace(front.URL, "http://", "ws://", 1)+"/api/v1/namespaces/team/pods/web/exec", hdr)
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, "v5.channel.k8s.io", resp.Header.Get("Sec-WebSocket-Protocol"))
	require.NoError(t, conn.WriteMessage(websocket.BinaryMessage, []byte("\x00hi")))
	_, msg, err := conn.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, "echo \x00hi", string(msg), "the stream flows both ways")

	reqs := fk.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/exec/team/web/app", reqs[0].URL.Path)
	assert.Equal(t, url.Values{"command": {"/hello", "cat", "-"}, "input": {"1"}, "output": {"1"}}, reqs[0].URL.Query())
	assert.Empty(t, reqs[0].Header.Get("Authorization"), "the caller's credentials never reach the kubelet")
	assert.Empty(t, reqs[0].Header.Get("Impersonate-User"))
	assert.Equal(t, "websocket", reqs[0].Header.Get("Upgrade"))
	assert.Equal(t, "v5.channel.k8s.io", reqs[0].Header.Get("Sec-Websocket-Protocol"))
}

func TestExecErrors(t *testing.T) {
	ca, cfg := testCA(t)
	refusing := newFakeKubelet(t, ca, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(apierrors.NewBadRequest("container app in pod web is not running"))
	})
	tests := []struct {
		name     string
		node     *core.Node
		wantCode int
		wantMsg  string
	}{
		{"node missing", &core.Node{ObjectMeta: meta.ObjectMeta{Name: "other"}}, http.StatusNotFound, `nodes "n1" not found`},
		{"no kubelet endpoint", testNode("127.0.0.1", 0), http.StatusBadRequest, `node "n1" has no kubelet endpoint`},
		{"kubelet unreachable", testNode("127.0.0.1", closedPort(t)), http.StatusServiceUnavailable, `error dialing backend: kubelet of node "n1"`},
		{"kubelet refuses", testNode("127.0.0.1", refusing.Port), http.StatusBadRequest, "container app in pod web is not running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(cfg, nodes(tt.node))
			front := execFrontend(t, c, core.PodExecOptions{Container: "app", Command: []string{"x"}, Stdout: true})
			_, resp, err := websocket.DefaultDialer.Dial(strings.Replace(front.URL, "http://", "ws://", 1), nil)
			require.Error(t, err)
			require.NotNil(t, resp)
			defer resp.Body.Close()
			assert.Equal(t, tt.wantCode, resp.StatusCode)
			var s meta.Status
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
			assert.Contains(t, s.Message, tt.wantMsg)
		})
	}
}

func TestExecReturnsErrorWithoutWriting(t *testing.T) {
	c := New(Config{}, nodes(testNode("127.0.0.1", closedPort(t))))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/team/pods/web/exec", nil)
	err := c.Exec(req.Context(), testPod(), core.PodExecOptions{Container: "app", Command: []string{"x"}, Stdout: true}, rec, req)
	require.Error(t, err)
	var st *meta.Status
	require.True(t, errors.As(err, &st))
	assert.Equal(t, int32(http.StatusServiceUnavailable), st.Code)
	assert.False(t, rec.Flushed)
	assert.Empty(t, rec.Body.String(), "the caller writes the error")
	assert.Empty(t, rec.Header(), "nothing was written")
}

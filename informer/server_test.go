package informer

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
)

// testServer is a real in-process control plane with an admin client for
// writes and a cuttable transport for informers.
type testServer struct {
	cp     *controlplane.ControlPlane
	tls    *tls.Config
	writer *http.Client
	cut    *cuttableDialer
	// informerClient uses cut: tests close its connections to drop watches.
	informerClient *client.Client
}

func startServer(t *testing.T, watchHistory int) *testServer {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server")
	}
	ctx, cancel := context.WithCancel(context.Background())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: addr, WatchHistory: watchHistory,
		Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(cancel)
	kp, err := cp.CA.IssueClient("admin", "system:masters")
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	tc := &tls.Config{RootCAs: cp.CA.Pool(), Certificates: []tls.Certificate{cert}}
	cut := &cuttableDialer{conns: map[net.Conn]struct{}{}}
	ic, err := client.New(&client.Config{Host: cp.URL, QPS: -1}, client.WithLogger(quietLogger()),
		client.WithTransport(&http.Transport{TLSClientConfig: tc, DialContext: cut.DialContext}),
		client.WithRetry(0, time.Millisecond, time.Millisecond)) // the reflector retries, with its own backoff
	require.NoError(t, err)
	s := &testServer{
		cp: cp, tls: tc, cut: cut, informerClient: ic,
		writer: &http.Client{Transport: &http.Transport{TLSClientConfig: tc, MaxIdleConnsPerHost: 64}},
	}
	t.Cleanup(func() { s.writer.CloseIdleConnections(); s.cut.CutAll() })
	return s
}

func (s *testServer) lw(ns string) *ResourceListerWatcher[core.ConfigMap, *core.ConfigMap] {
	return NewListerWatcher(client.For[core.ConfigMap](s.informerClient, ns), "", "")
}

// cuttableDialer remembers its open connections so a test can cut them.
type cuttableDialer struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	cuts    int
	blocked bool
}

// Block makes new connections fail until Unblock.
func (d *cuttableDialer) Block(b bool) {
	d.mu.Lock()
	d.blocked = b
	d.mu.Unlock()
}

func (d *cuttableDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	blocked := d.blocked
	d.mu.Unlock()
	if blocked {
		return nil, errors.New("test: dialing blocked")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.conns[c] = struct{}{}
	d.mu.Unlock()
	return &trackedConn{Conn: c, d: d}, nil
}

// CutAll closes every open connection and returns how many it closed.
func (d *cuttableDialer) CutAll() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.conns)
	for c := range d.conns {
		c.Close()
	}
	clear(d.conns)
	d.cuts++
	return n
}

type trackedConn struct {
	net.Conn
	d *cuttableDialer
}

func (c *trackedConn) Close() error {
	c.d.mu.Lock()
	delete(c.d.conns, c.Conn)
	c.d.mu.Unlock()
	return c.Conn.Close()
}

func (s *testServer) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.cp.URL+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.writer.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func cmPath(ns, name string) string {
	p := "/api/v1/namespaces/" + ns + "/configmaps"
	if name != "" {
		p += "/" + name
	}
	return p
}

func newCM(ns, name, value string) *core.ConfigMap {
	return &core.ConfigMap{
		TypeMeta:   meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "churn"}},
		Data:       map[string]string{"v": value},
	}
}

// create, update and remove write a ConfigMap; they return the HTTP code.
func (s *testServer) create(ctx context.Context, cm *core.ConfigMap) (int, error) {
	code, b, err := s.do(ctx, http.MethodPost, cmPath(cm.Namespace, ""), cm)
	return code, wrapBody(code, b, err)
}

func (s *testServer) update(ctx context.Context, cm *core.ConfigMap) (int, error) {
	code, b, err := s.do(ctx, http.MethodPut, cmPath(cm.Namespace, cm.Name), cm)
	return code, wrapBody(code, b, err)
}

func (s *testServer) remove(ctx context.Context, ns, name string) (int, error) {
	code, b, err := s.do(ctx, http.MethodDelete, cmPath(ns, name), nil)
	return code, wrapBody(code, b, err)
}

func wrapBody(code int, b []byte, err error) error {
	if err != nil {
		return err
	}
	if code/100 != 2 {
		return fmt.Errorf("HTTP %d: %s", code, b)
	}
	return nil
}

func (s *testServer) mustCreate(t *testing.T, ns, name, v string) {
	t.Helper()
	_, err := s.create(context.Background(), newCM(ns, name, v))
	require.NoError(t, err)
}

// freshList lists every ConfigMap of ns (one request) as key → resourceVersion.
func (s *testServer) freshList(t *testing.T, ns string) (map[string]string, string) {
	t.Helper()
	code, b, err := s.do(context.Background(), http.MethodGet, cmPath(ns, ""), nil)
	require.NoError(t, wrapBody(code, b, err))
	var list meta.List[core.ConfigMap]
	require.NoError(t, json.Unmarshal(b, &list))
	out := map[string]string{}
	for i := range list.Items {
		out[KeyOf(&list.Items[i])] = list.Items[i].ResourceVersion
	}
	return out, list.ResourceVersion
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting: %s", d, fmt.Sprintf(msg, args...))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

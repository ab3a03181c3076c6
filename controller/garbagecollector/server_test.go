package garbagecollector

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/pki"
	"github.com/orkit/orkit/store/bbolt"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Widget is the user-defined kind the tests register with the server.
type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            map[string]any `json:"spec,omitempty"`
}

var widgetGVR = meta.GroupVersionResource{Group: "example.orkit.dev", Version: "v1", Resource: "widgets"}

func widgetType() scheme.Type {
	return scheme.Type{
		Kind:     meta.GroupVersionKind{Group: widgetGVR.Group, Version: widgetGVR.Version, Kind: "Widget"},
		Resource: widgetGVR.Resource, Namespaced: true,
		New:     func() meta.Object { return &Widget{} },
		NewList: func() meta.ListObject { return &meta.List[Widget]{} },
	}
}

// startServer runs an API server with the built-in kinds and Widget (a
// user-defined kind registered before it starts, as an embedder does)
// until the test ends, and returns an admin client.
func startServer(t testing.TB) *client.Client {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ca, err := pki.NewCA("gc-test-ca")
	require.NoError(t, err)
	serving, err := ca.IssueServing("kube-apiserver", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	require.NoError(t, err)
	st, err := bbolt.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	sch := api.NewScheme()
	srv, err := apiserver.New(apiserver.Config{
		Listen: "127.0.0.1:0", Store: st, Scheme: sch, TLS: &cert, ClientCA: ca.Pool(),
		Resources:     []apiserver.Resource{{Type: ptr(widgetType())}},
		Authenticator: authn.X509(ca.Pool()), Logger: quietLogger(), Bootstrap: true,
	})
	require.NoError(t, err)
	require.NoError(t, srv.Start(ctx))
	t.Cleanup(func() { cancel(); _ = st.Close() })
	select {
	case <-srv.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("API server caches did not sync")
	}
	kp, err := ca.IssueClient("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(&client.Config{Host: "https://" + srv.Addr().String(), CAData: ca.CertPEM,
		CertData: kp.CertPEM, KeyData: kp.KeyPEM, QPS: -1}, client.WithLogger(quietLogger()))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func ptr[T any](v T) *T { return &v }

// runGC runs a collector over c until the test ends.
func runGC(t *testing.T, c *client.Client) *Controller {
	t.Helper()
	gc, err := New(managerFor(t, c), Config{Logger: quietLogger(), DiscoveryPeriod: time.Second})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return gc
}

// eventually polls cond every 20 ms until it holds or 20 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// managerFor returns a manager over c for a collector to be made on; the
// tests run the collector on its own.
func managerFor(tb testing.TB, c *client.Client) *controller.Manager {
	tb.Helper()
	m, err := controller.NewManager(controller.ManagerConfig{Client: c, Logger: quietLogger()})
	require.NoError(tb, err)
	return m
}

package apiserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/store/bbolt"
)

// TestNewErrors: New refuses a Config it cannot serve, with the reason.
func TestNewErrors(t *testing.T) {
	st, err := bbolt.Open(t.TempDir()+"/store.db", nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	core := scheme.New()
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "no store", cfg: Config{Scheme: api.NewScheme()}, want: "Store and Scheme are required"},
		{name: "no scheme", cfg: Config{Store: st}, want: "Store and Scheme are required"},
		{name: "initializers without their resource", cfg: Config{Store: st, Scheme: core, Initializers: true},
			want: "initializerconfigurations"},
		{name: "a resource twice", cfg: Config{Store: st, Scheme: core, Resources: []Resource{
			{Type: mustType(t, "configmaps")}, {Type: mustType(t, "configmaps")}}}, want: "already registered"},
		{name: "a resource without a type", cfg: Config{Store: st, Scheme: core, Resources: []Resource{{}}},
			want: "Resource.Type is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func mustType(t *testing.T, resource string) *scheme.Type {
	t.Helper()
	typ, ok := api.NewScheme().ByResource(meta.GroupVersionResource{Version: "v1", Resource: resource})
	require.True(t, ok, resource)
	return typ
}

// TestFactoriesAtStart: Start builds the authorizer and the admission
// chain with the server, whose resources are registered by then, and a
// context that ends when the server stops; what they build is used.
func TestFactoriesAtStart(t *testing.T) {
	var admissionCtx context.Context
	ts := newTestServer(t, func(c *Config) {
		c.Authorizer = func(_ context.Context, srv *Server) (authz.Authorizer, error) {
			if _, ok := srv.Storage(meta.GroupVersionResource{Version: "v1", Resource: "pods"}); !ok {
				return nil, errors.New("pods not registered yet")
			}
			return authz.AlwaysAllow(), nil
		}
		c.Admission = func(ctx context.Context, srv *Server) (*admission.Chain, error) {
			admissionCtx = ctx
			return &admission.Chain{Validators: []admission.Validator{denyConfigMaps{}}}, nil
		}
	})
	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json",
		[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`))
	assert.Equal(t, http.StatusForbidden, code, "the admission chain of the factory: %s", body)
	assert.Contains(t, string(body), "no configmaps here")
	require.NotNil(t, admissionCtx)
	assert.NoError(t, admissionCtx.Err(), "the run context lives while the server serves")
}

// denyConfigMaps refuses every ConfigMap create.
type denyConfigMaps struct{}

func (denyConfigMaps) Name() string                        { return "DenyConfigMaps" }
func (denyConfigMaps) Handles(op admission.Operation) bool { return op == admission.Create }
func (denyConfigMaps) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Resource.Resource == "configmaps" {
		return errors.New("no configmaps here")
	}
	return nil
}

// TestStartFactoryError: a failing factory fails Start, which then
// releases the address, and cancels the context it gave the factories.
func TestStartFactoryError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	var authzCtx context.Context
	boom := errors.New("boom")
	srvTLS := newTestServer(t, nil).srv.cfg.TLS // a serving certificate
	st, err := bbolt.Open(t.TempDir()+"/store.db", nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	srv, err := New(Config{Listen: addr, Store: st, Scheme: api.NewScheme(), TLS: srvTLS,
		Authorizer: func(ctx context.Context, _ *Server) (authz.Authorizer, error) {
			authzCtx = ctx
			return authz.AlwaysAllow(), nil
		},
		Admission: func(context.Context, *Server) (*admission.Chain, error) { return nil, boom }})
	require.NoError(t, err)
	err = srv.Start(context.Background())
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "admission")
	require.NotNil(t, authzCtx)
	assert.Error(t, authzCtx.Err(), "what the factories started is stopped")
	l, err = net.Listen("tcp", addr)
	require.NoError(t, err, "the address is free again")
	l.Close()
}

// TestRegisterWhileServing: a resource registered after Start is served
// at once, its watch cache included.
func TestRegisterWhileServing(t *testing.T) {
	ts := newTestServer(t, nil)
	typ := *mustType(t, "configmaps")
	typ.Kind.Group, typ.Resource = "late.example", "lateconfigmaps"
	typ.Kind.Kind = "LateConfigMap"
	typ.New = func() meta.Object { return &core.ConfigMap{} }
	require.NoError(t, ts.srv.Register(Resource{Type: &typ}))
	code, body := ts.do(t, "POST", "/apis/late.example/v1/namespaces/default/lateconfigmaps", "application/json",
		[]byte(`{"apiVersion":"late.example/v1","kind":"LateConfigMap","metadata":{"name":"x"}}`))
	require.Equal(t, http.StatusCreated, code, string(body))
	require.Eventually(t, func() bool {
		code, body = ts.do(t, "GET", "/apis/late.example/v1/namespaces/default/lateconfigmaps?resourceVersion=0", "", nil)
		return code == http.StatusOK && strings.Contains(string(body), `"name":"x"`)
	}, 10*time.Second, 20*time.Millisecond)
}

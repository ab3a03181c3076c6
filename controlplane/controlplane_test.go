package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/pki"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

// waitDone waits for the control plane to stop after its context ended.
func waitDone(t *testing.T, cp *ControlPlane) {
	t.Helper()
	select {
	case <-cp.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("control plane did not stop")
	}
}

// TestRestartKeepsState: a control plane started again on the same data
// directory keeps its CA (certificates issued before stay valid) and its
// objects; Done says when the directory may be opened again.
func TestRestartKeepsState(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cp, err := Start(ctx, Config{DataDir: dir, Listen: addr})
	require.NoError(t, err)
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	_, err = client.For[core.ConfigMap](c, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "kept"}})
	require.NoError(t, err)
	c.CloseIdleConnections()
	cancel()
	waitDone(t, cp)

	ctx2, cancel2 := context.WithCancel(context.Background())
	t.Cleanup(cancel2)
	cp2, err := Start(ctx2, Config{DataDir: dir, Listen: addr})
	require.NoError(t, err)
	assert.Equal(t, cp.CA.CertPEM, cp2.CA.CertPEM)
	c2, err := client.New(cfg) // the old credentials
	require.NoError(t, err)
	t.Cleanup(c2.CloseIdleConnections)
	_, err = client.For[core.ConfigMap](c2, "default").Get(ctx2, "kept")
	assert.NoError(t, err)
}

// TestConfigErrors: a Config that cannot work fails Start with the reason
// and leaves nothing running.
func TestConfigErrors(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		cfg     Config
		wantIs  error
		wantMsg string
	}{
		{name: "no data dir", cfg: Config{}, wantIs: ErrInvalidConfig, wantMsg: "DataDir is required"},
		{name: "bad listen address", cfg: Config{Listen: "6443"}, wantIs: ErrInvalidConfig, wantMsg: `listen address "6443"`},
		{name: "bad authorization mode", cfg: Config{Auth: AuthConfig{AuthorizationMode: "Nope"}}, wantIs: ErrInvalidConfig, wantMsg: `"Nope" is not a valid mode`},
		{name: "store factory fails", cfg: Config{Store: func(context.Context, string) (store.Interface, error) { return nil, errBoom }},
			wantIs: errBoom, wantMsg: "open store"},
		{name: "store factory gives nothing", cfg: Config{Store: func(context.Context, string) (store.Interface, error) { return nil, nil }},
			wantIs: ErrInvalidConfig, wantMsg: "no store"},
		{name: "admission factory fails", cfg: Config{Admission: func(context.Context, *apiserver.Server) (*admission.Chain, error) { return nil, errBoom }},
			wantIs: errBoom, wantMsg: "admission"},
		{name: "missing signing key file", cfg: Config{ServiceAccounts: ServiceAccountConfig{SigningKeyFile: "/nonexistent/sa.key"}},
			wantIs: ErrInvalidConfig, wantMsg: "service-account-signing-key-file"},
		{name: "missing key file", cfg: Config{ServiceAccounts: ServiceAccountConfig{KeyFiles: []string{"/nonexistent/sa.pub"}}},
			wantIs: ErrInvalidConfig, wantMsg: "service-account-key-file"},
		{name: "bad issuer", cfg: Config{ServiceAccounts: ServiceAccountConfig{Issuer: "ht tp://x:y"}},
			wantIs: ErrInvalidConfig, wantMsg: "issuer"},
		{name: "resource twice", cfg: Config{Resources: []apiserver.Resource{{Type: gadgetType()}, {Type: gadgetType()}}},
			wantMsg: "already registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := tt.cfg
			if tt.name != "no data dir" {
				cfg.DataDir = t.TempDir()
			}
			if cfg.Listen == "" {
				cfg.Listen = freeAddr(t)
			}
			_, err := Start(ctx, cfg)
			require.Error(t, err)
			if tt.wantIs != nil {
				assert.ErrorIs(t, err, tt.wantIs)
			}
			assert.Contains(t, err.Error(), tt.wantMsg)
			if cfg.DataDir != "" && cfg.Store == nil {
				// the store is closed again: another open succeeds at once
				st, err := bbolt.Open(filepath.Join(cfg.DataDir, "store.db"), &bbolt.Config{LockTimeout: time.Second})
				require.NoError(t, err)
				st.Close()
			}
		})
	}
}

// TestExistingStoreAndCA: a store and a CA the caller made are used as
// they are; the store is left open for its owner, no pki/ is written, and
// the serving certificate carries the extra names.
func TestExistingStoreAndCA(t *testing.T) {
	dir := t.TempDir()
	st, err := bbolt.Open(filepath.Join(t.TempDir(), "mine.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	ca, err := pki.NewCA("my-ca")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cp, err := Start(ctx, Config{DataDir: dir, Listen: freeAddr(t), Store: ExistingStore(st),
		PKI: PKIConfig{CA: ca, ServingHosts: []string{"api.example.test", "127.0.0.9"}}})
	require.NoError(t, err)
	assert.Same(t, ca, cp.CA)
	assert.Same(t, ca, cp.FrontProxyCA, "the given CA also signs the proxy client certificate")
	assert.Equal(t, store.Interface(st), cp.Store)
	_, err = os.Stat(filepath.Join(dir, "pki"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	conn, err := tls.Dial("tcp", cp.Server.Addr().String(), &tls.Config{RootCAs: ca.Pool(), ServerName: "api.example.test"})
	require.NoError(t, err)
	leaf := conn.ConnectionState().PeerCertificates[0]
	conn.Close()
	assert.Contains(t, leaf.DNSNames, "kubernetes.default.svc")
	assert.True(t, leaf.VerifyHostname("127.0.0.9") == nil, "extra IP in %v", leaf.IPAddresses)

	cancel()
	waitDone(t, cp)
	rev, err := st.Revision(context.Background())
	require.NoError(t, err, "the caller's store stays open")
	assert.Positive(t, rev, "the bootstrap objects are in the caller's store")
}

// Gadget is a user-defined kind for the Resources test.
type Gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Size            int `json:"size,omitempty"`
}

func gadgetType() *scheme.Type {
	return &scheme.Type{
		Kind:     meta.GroupVersionKind{Group: "example.orkit.dev", Version: "v1", Kind: "Gadget"},
		Resource: "gadgets", Namespaced: true,
		New:     func() meta.Object { return &Gadget{} },
		NewList: func() meta.ListObject { return &meta.List[Gadget]{} },
	}
}

// TestResourcesServed: a Config.Resources kind is served from the start
// (create, list from its watch cache), as the built-ins are.
func TestResourcesServed(t *testing.T) {
	tokens := writeFile(t, "tokens.csv", "admin-token,admin,0,\"system:masters\"\n")
	cp := start(t, Config{Auth: AuthConfig{TokenFile: tokens}, Resources: []apiserver.Resource{{Type: gadgetType()}}})
	const path = "/apis/example.orkit.dev/v1/namespaces/default/gadgets"
	code, body := call(t, cp, http.MethodPost, path,
		map[string]any{"apiVersion": "example.orkit.dev/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}, "size": 3},
		bearer("admin-token"))
	require.Equal(t, http.StatusCreated, code, body)
	require.Eventually(t, func() bool {
		code, body = call(t, cp, http.MethodGet, path+"?resourceVersion=0", nil, bearer("admin-token"))
		return code == http.StatusOK && strings.Contains(body, `"name":"g"`)
	}, 10*time.Second, 20*time.Millisecond, "the watch cache lists the gadget: %s", body)
}

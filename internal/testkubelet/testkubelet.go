package testkubelet

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/pki"
)

// ClientCN is the only client certificate subject the endpoint accepts
// (kubelet.APIServerClientCN).
const ClientCN = "kube-apiserver-kubelet-client"

// Kubelet is a running endpoint. It belongs to the test that started it
// and stops when the test ends.
type Kubelet struct {
	// Port is the endpoint's port on 127.0.0.1.
	Port int32
	srv  *httptest.Server
}

// Start serves h over TLS on 127.0.0.1 with a serving certificate from ca,
// answering 403 to any caller without a client certificate from ca whose
// CN is ClientCN.
func Start(t testing.TB, ca *pki.CA, h http.Handler) *Kubelet {
	t.Helper()
	kp, err := ca.IssueServing("system:node:testkubelet", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName != ClientCN {
			http.Error(w, "forbidden: only the API server may call the kubelet", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: ca.Pool(),
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &Kubelet{Port: int32(srv.Listener.Addr().(*net.TCPAddr).Port), srv: srv}
}

// Node returns a Node name whose InternalIP is 127.0.0.1 and whose kubelet
// endpoint is k.
func (k *Kubelet) Node(name string) *core.Node {
	n := &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}}
	n.Status.Addresses = []core.NodeAddress{{Type: core.NodeInternalIP, Address: "127.0.0.1"}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = k.Port
	return n
}

// Register creates (or takes over) the Node name through c and writes
// its status so that the API server reaches k for the node's pods.
func (k *Kubelet) Register(ctx context.Context, c *client.Client, name string) error {
	nodes := client.For[core.Node](c, "")
	n, err := nodes.Get(ctx, name)
	if err != nil {
		if n, err = nodes.Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	n.Status = k.Node(name).Status
	_, err = nodes.UpdateStatus(ctx, n)
	return err
}

package apiserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testkubelet"
)

const logRBAC = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: dev, namespace: team}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dev, namespace: team}
subjects: [{kind: User, name: dev, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: Role, name: dev, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec:
  nodeName: node-1
  containers:
  - {name: app, image: orkit.local/hello:v1}
`

// wsDialer dials the API server of kubeconfig as its user.
func wsDialer(t *testing.T, kubeconfig string, protocols ...string) (*websocket.Dialer, http.Header, string) {
	t.Helper()
	cfg, err := client.ConfigFromKubeconfig(kubeconfig, "")
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(cfg.CAData))
	tlsCfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	h := http.Header{}
	if len(cfg.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		require.NoError(t, err)
		tlsCfg.Certificates = []tls.Certificate{cert}
	}
	if cfg.BearerToken != "" {
		h.Set("Authorization", "Bearer "+cfg.BearerToken)
	}
	u, err := url.Parse(cfg.Host)
	require.NoError(t, err)
	return &websocket.Dialer{TLSClientConfig: tlsCfg, Subprotocols: protocols, HandshakeTimeout: 10 * time.Second}, h, "wss://" + u.Host
}

// readLog reads messages until the server closes the connection and
// returns them.
func readLog(t *testing.T, conn *websocket.Conn) (kinds []int, msgs []string, closeCode int) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	for {
		kind, b, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			require.ErrorAs(t, err, &ce)
			return kinds, msgs, ce.Code
		}
		kinds, msgs = append(kinds, kind), append(msgs, string(b))
	}
}

// TestPodLogOverWebSocket: a WebSocket GET of pods/log (what the
// conformance suite and browsers use) streams the kubelet's log as
// messages, raw (binary.k8s.io, or no protocol) or base64
// (base64.binary.k8s.io), and closes normally at its end; requests that
// fail the checks are refused before the upgrade, as plain GETs are.
func TestPodLogOverWebSocket(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, logRBAC, "apply", "-f", "-")
	k := testkubelet.Start(t, c.cp.CA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/containerLogs/team/web/app" {
			http.Error(w, "unexpected "+r.URL.Path, http.StatusNotFound)
			return
		}
		fmt.Fprint(w, "container is alive\n")
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "second line\n")
	}))
	cfg, err := client.ConfigFromKubeconfig(c.admin, "")
	require.NoError(t, err)
	admin, err := client.New(cfg)
	require.NoError(t, err)
	require.NoError(t, k.Register(context.Background(), admin, "node-1"))
	const path = "/api/v1/namespaces/team/pods/web/log?container=app"

	for _, tt := range []struct {
		protocol string
		want     int // message kind
	}{
		{"binary.k8s.io", websocket.BinaryMessage},
		{"", websocket.BinaryMessage},
		{"base64.binary.k8s.io", websocket.TextMessage},
	} {
		t.Run("protocol "+tt.protocol, func(t *testing.T) {
			var protocols []string
			if tt.protocol != "" {
				protocols = []string{tt.protocol}
			}
			d, h, base := wsDialer(t, c.admin, protocols...)
			conn, resp, err := d.Dial(base+path, h)
			require.NoError(t, err, "%s", responseBody(resp))
			defer conn.Close()
			assert.Equal(t, tt.protocol, resp.Header.Get("Sec-WebSocket-Protocol"))
			kinds, msgs, code := readLog(t, conn)
			assert.Equal(t, websocket.CloseNormalClosure, code)
			var all strings.Builder
			for i, m := range msgs {
				assert.Equal(t, tt.want, kinds[i])
				if tt.want == websocket.TextMessage {
					b, err := base64.StdEncoding.DecodeString(m)
					require.NoError(t, err)
					m = string(b)
				}
				all.WriteString(m)
			}
			assert.Equal(t, "container is alive\nsecond line\n", all.String())
		})
	}

	for _, tt := range []struct {
		name, kubeconfig, path string
		wantStatus             int
	}{
		{"no get on pods/log", c.dev, path, http.StatusForbidden},
		{"container not in pod", c.admin, "/api/v1/namespaces/team/pods/web/log?container=db", http.StatusBadRequest},
		{"malformed option", c.admin, "/api/v1/namespaces/team/pods/web/log?container=app&tailLines=x", http.StatusBadRequest},
		{"missing pod", c.admin, "/api/v1/namespaces/team/pods/nope/log", http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, h, base := wsDialer(t, tt.kubeconfig, "binary.k8s.io")
			conn, resp, err := d.Dial(base+tt.path, h)
			if conn != nil {
				conn.Close()
			}
			require.ErrorIs(t, err, websocket.ErrBadHandshake)
			assert.Equal(t, tt.wantStatus, resp.StatusCode, "%s", responseBody(resp))
		})
	}
}

// responseBody is resp's body, for a failure message.
func responseBody(resp *http.Response) string {
	if resp == nil {
		return "no response"
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.Status + ": " + string(b)
}

package kubelet

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
)

// TestServerTimeouts: the kubelet's HTTPS endpoint closes a connection
// that sends nothing after Config.Serving.ReadHeaderTimeout and an idle
// keep-alive connection of the API server after its IdleTimeout.
func TestServerTimeouts(t *testing.T) {
	tc := startCluster(t)
	kp, err := tc.cp.CA.IssueServing("system:node:node-t", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := kp.TLSCertificate()
	require.NoError(t, err)
	tc.startFakeKubelet(t, "node-t", func(c *Config) {
		c.ServerAddr, c.ServingCert, c.ClientCA = "127.0.0.1:0", &cert, tc.cp.CA.Pool()
		c.Serving.IdleTimeout = 200 * time.Millisecond
		c.Serving.ReadHeaderTimeout = 200 * time.Millisecond
	})
	var port int32
	waitFor(t, 20*time.Second, "kubelet endpoint", func() bool {
		n, err := client.For[core.Node](tc.admin, "").Get(context.Background(), "node-t")
		if err == nil {
			port = n.Status.DaemonEndpoints.KubeletEndpoint.Port
		}
		return port != 0
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	apiKP, err := tc.cp.CA.IssueClient(APIServerClientCN)
	require.NoError(t, err)
	apiCert, err := apiKP.TLSCertificate()
	require.NoError(t, err)

	idle, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: tc.cp.CA.Pool(), Certificates: []tls.Certificate{apiCert}})
	require.NoError(t, err)
	defer idle.Close()
	_, err = io.WriteString(idle, "GET /containerLogs/default/none/c HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	silent, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer silent.Close()
	for name, c := range map[string]net.Conn{"idle keep-alive": idle, "silent": silent} {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "%s: closed by the kubelet", name)
	}
}

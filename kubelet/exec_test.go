package kubelet

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// execCluster is an API server and a kubelet over cri/fake with the
// kubelet's HTTPS server (the control plane's API server reaches kubelets
// that trust the cluster CA).
type execCluster struct {
	tc     *testCluster
	dialer *websocket.Dialer
}

// servingConfig gives a kubelet an HTTPS server on 127.0.0.1.
func (tc *testCluster) servingConfig(t testing.TB, node string) func(*Config) {
	serving, err := tc.cp.CA.IssueServing("system:node:"+node, []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	require.NoError(t, err)
	return func(c *Config) {
		c.ServerAddr, c.ServingCert, c.ClientCA = "127.0.0.1:0", &cert, tc.cp.CA.Pool()
	}
}

func startExecCluster(t *testing.T) *execCluster {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "exec-node", tc.servingConfig(t, "exec-node"))
	waitFor(t, 20*time.Second, "node with a kubelet endpoint", func() bool {
		n, err := client.For[core.Node](tc.admin, "").Get(context.Background(), "exec-node")
		return err == nil && n.Status.DaemonEndpoints.KubeletEndpoint.Port != 0
	})
	kp, err := tc.cp.CA.IssueClient("exec-admin", "system:masters")
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	d := &websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: tc.cp.CA.Pool(), Certificates: []tls.Certificate{cert}},
		HandshakeTimeout: 10 * time.Second, Subprotocols: []string{ProtocolV5}}
	ec := &execCluster{tc: tc, dialer: d}
	_, err = pods(tc.admin, "default").Create(context.Background(), simplePod("box", "exec-node"))
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "box", 20*time.Second, "running", running)
	return ec
}

// execResult is what a client saw on each channel of one exec session.
type execResult struct {
	stdout, stderr string
	status         meta.Status
	closeCode      int
}

// dial opens an exec stream on pod box with the query q.
func (ec *execCluster) dial(t *testing.T, pod string, q url.Values) (*websocket.Conn, *http.Response, error) {
	u := strings.Replace(ec.tc.cp.URL, "https://", "wss://", 1) + "/api/v1/namespaces/default/pods/" + pod + "/exec?" + q.Encode()
	return ec.dialer.Dial(u, nil)
}

// collect reads the session until the server closes it.
func collect(t *testing.T, conn *websocket.Conn) execResult {
	t.Helper()
	var r execResult
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			require.True(t, errors.As(err, &ce), "session ended with %v", err)
			r.closeCode = ce.Code
			return r
		}
		if len(msg) == 0 {
			continue
		}
		switch msg[0] {
		case chanStdout:
			r.stdout += string(msg[1:])
		case chanStderr:
			r.stderr += string(msg[1:])
		case chanError:
			require.NoError(t, json.Unmarshal(msg[1:], &r.status), "status %q", msg[1:])
		}
	}
}

func execQueryOf(cmd []string, flags ...string) url.Values {
	q := url.Values{"command": cmd}
	for _, f := range flags {
		q.Set(f, "true")
	}
	return q
}

func TestFakeExecThroughAPIServer(t *testing.T) {
	ec := startExecCluster(t)
	tests := []struct {
		name       string
		cmd        []string
		flags      []string
		send       [][]byte // client messages after connecting
		wantStdout string
		wantStderr string
		wantStatus string
		wantCode   string // ExitCode cause
	}{
		{name: "stdout", cmd: []string{"/hello", "echo", "hi"}, flags: []string{"stdout", "stderr"},
			wantStdout: "hi\n", wantStatus: "Success"},
		{name: "stderr", cmd: []string{"/hello", "echo-err", "oops"}, flags: []string{"stdout", "stderr"},
			wantStderr: "oops\n", wantStatus: "Success"},
		{name: "exit code", cmd: []string{"/hello", "exit", "3"}, flags: []string{"stdout", "stderr"},
			wantStatus: "Failure", wantCode: "3"},
		{name: "stdin then close signal", cmd: []string{"/hello", "cat", "-"}, flags: []string{"stdin", "stdout", "stderr"},
			send: [][]byte{[]byte("\x00line 1\n"), []byte("\x00line 2\n"), {255, 0}}, wantStdout: "line 1\nline 2\n", wantStatus: "Success"},
		{name: "malformed messages are skipped", cmd: []string{"/hello", "cat", "-"}, flags: []string{"stdin", "stdout"},
			send:       [][]byte{[]byte("\x04not json"), []byte("\x01to stdout?"), {255}, []byte("\x00ok\n"), {255, 0}},
			wantStdout: "ok\n", wantStatus: "Success"},
		{name: "tty with resize", cmd: []string{"/hello", "ttysize"}, flags: []string{"stdin", "stdout", "tty"},
			send:       [][]byte{[]byte("\x04{\"Width\":100,\"Height\":40}"), []byte("\x00\n"), []byte("\x00q\n")},
			wantStdout: "40 100\r\n", wantStatus: "Success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, resp, err := ec.dial(t, "box", execQueryOf(tt.cmd, tt.flags...))
			require.NoError(t, err)
			defer conn.Close()
			assert.Equal(t, ProtocolV5, resp.Header.Get("Sec-WebSocket-Protocol"))
			for _, m := range tt.send {
				require.NoError(t, conn.WriteMessage(websocket.BinaryMessage, m))
			}
			r := collect(t, conn)
			assert.Equal(t, websocket.CloseNormalClosure, r.closeCode)
			assert.Equal(t, tt.wantStdout, r.stdout)
			assert.Equal(t, tt.wantStderr, r.stderr)
			assert.Equal(t, tt.wantStatus, r.status.Status, "%+v", r.status)
			if tt.wantCode != "" {
				assert.Equal(t, "NonZeroExitCode", string(r.status.Reason))
				require.NotNil(t, r.status.Details)
				assert.Equal(t, []meta.StatusCause{{Type: "ExitCode", Message: tt.wantCode}}, r.status.Details.Causes)
			}
		})
	}

	t.Run("oversized message ends the session", func(t *testing.T) {
		conn, _, err := ec.dial(t, "box", execQueryOf([]string{"/hello", "cat", "-"}, "stdin", "stdout"))
		require.NoError(t, err)
		defer conn.Close()
		big := make([]byte, maxExecMessage+2)
		require.NoError(t, conn.WriteMessage(websocket.BinaryMessage, big))
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				var ce *websocket.CloseError
				if errors.As(err, &ce) {
					assert.Equal(t, websocket.CloseMessageTooBig, ce.Code)
				}
				break
			}
		}
	})

	t.Run("errors before the upgrade", func(t *testing.T) {
		tests := []struct {
			name, pod string
			q         url.Values
			wantCode  int
			wantMsg   string
		}{
			{"missing pod", "nope", execQueryOf([]string{"x"}, "stdout"), 404, `pods "nope" not found`},
			{"bad container", "box", url.Values{"command": {"x"}, "stdout": {"true"}, "container": {"sidecar"}}, 400,
				"container sidecar is not valid for pod box"},
			{"no command", "box", execQueryOf(nil, "stdout"), 400, "you must specify at least 1 command"},
			{"no stream", "box", execQueryOf([]string{"x"}), 400, "you must specify at least 1 of stdin, stdout, stderr"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, resp, err := ec.dial(t, tt.pod, tt.q)
				require.Error(t, err)
				require.NotNil(t, resp)
				defer resp.Body.Close()
				assert.Equal(t, tt.wantCode, resp.StatusCode)
				var s meta.Status
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
				assert.Equal(t, tt.wantMsg, s.Message)
			})
		}
	})

	t.Run("v4 for older clients", func(t *testing.T) {
		d := *ec.dialer
		d.Subprotocols = []string{"v3.channel.k8s.io", ProtocolV4}
		u := strings.Replace(ec.tc.cp.URL, "https://", "wss://", 1) + "/api/v1/namespaces/default/pods/box/exec?" +
			execQueryOf([]string{"/hello", "exit", "4"}, "stdout").Encode()
		conn, resp, err := d.Dial(u, nil)
		require.NoError(t, err)
		defer conn.Close()
		assert.Equal(t, ProtocolV4, resp.Header.Get("Sec-WebSocket-Protocol"))
		r := collect(t, conn)
		require.NotNil(t, r.status.Details)
		assert.Equal(t, []meta.StatusCause{{Type: "ExitCode", Message: "4"}}, r.status.Details.Causes)
	})

	t.Run("v1 for the conformance suite", func(t *testing.T) {
		for _, tt := range []struct {
			cmd                []string
			wantOut, wantError string
		}{
			{[]string{"/hello", "echo", "remote execution test"}, "remote execution test\n", ""},
			{[]string{"/hello", "exit", "4"}, "", "command terminated with non-zero exit code"},
		} {
			d := *ec.dialer
			d.Subprotocols = []string{ProtocolV1}
			u := strings.Replace(ec.tc.cp.URL, "https://", "wss://", 1) + "/api/v1/namespaces/default/pods/box/exec?" +
				execQueryOf(tt.cmd, "stdout", "stderr").Encode()
			conn, resp, err := d.Dial(u, nil)
			require.NoError(t, err)
			assert.Equal(t, ProtocolV1, resp.Header.Get("Sec-WebSocket-Protocol"))
			var stdout, errText string
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					break
				}
				switch {
				case len(msg) == 0:
				case msg[0] == chanStdout:
					stdout += string(msg[1:])
				case msg[0] == chanError:
					errText += string(msg[1:])
				}
			}
			conn.Close()
			assert.Equal(t, tt.wantOut, stdout)
			if tt.wantError == "" {
				assert.Empty(t, errText, "v1 sends nothing on the error channel on success")
			} else {
				assert.Contains(t, errText, tt.wantError, "v1 sends the failure's message as text")
			}
		}
	})

	t.Run("no common subprotocol", func(t *testing.T) {
		d := *ec.dialer
		d.Subprotocols = []string{"base64.channel.k8s.io"}
		u := strings.Replace(ec.tc.cp.URL, "https://", "wss://", 1) + "/api/v1/namespaces/default/pods/box/exec?" +
			execQueryOf([]string{"/hello", "echo"}, "stdout").Encode()
		_, resp, err := d.Dial(u, nil)
		require.Error(t, err)
		require.NotNil(t, resp)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	})
}

// TestFakeKubectlExec drives real kubectl against the fake runtime.
func TestFakeKubectlExec(t *testing.T) {
	ec := startExecCluster(t)
	k := newKubectl(t, ec.tc.cp.AdminKubeconfig)
	out, errOut, code := k.run("", "exec", "box", "--", "/hello", "echo", "hi")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "hi\n", out)

	out, errOut, code = k.run("one\ntwo\n", "exec", "-i", "box", "--", "/hello", "cat", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "one\ntwo\n", out)

	_, errOut, code = k.run("", "exec", "box", "--", "/hello", "exit", "3")
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "command terminated with exit code 3")

	_, errOut, code = k.run("", "exec", "box", "-c", "sidecar", "--", "/hello", "echo")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "container sidecar is not valid for pod box")

	_, errOut, code = k.run("", "exec", "nope", "--", "/hello", "echo")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, `pods "nope" not found`)
}

package lbtest

import (
	"crypto/tls"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBalancer puts haproxy in front of a ready and an unready TLS
// server: once the health checks ran, every connection reaches the ready
// one; a stopped balancer's port is closed.
func TestBalancer(t *testing.T) {
	backend := func(name string, ready bool) *httptest.Server {
		s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/readyz" && !ready {
				http.Error(w, "not ready", http.StatusServiceUnavailable)
				return
			}
			_, _ = io.WriteString(w, name)
		}))
		t.Cleanup(s.Close)
		return s
	}
	good, bad := backend("good", true), backend("bad", false)
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(caFile, pemOf(good.Certificate().Raw), 0o600))
	// httptest servers share one certificate, so one CA file verifies both.
	b := Start(t, Config{Backends: []string{strings.TrimPrefix(good.URL, "https://"), strings.TrimPrefix(bad.URL, "https://")},
		CAFile: caFile, CheckInterval: 200 * time.Millisecond})
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}} //nolint:gosec // test servers
	deadline := time.Now().Add(20 * time.Second)
	for {
		if strings.Contains(b.Log(), "apiserver-1 is DOWN") {
			break
		}
		require.True(t, time.Now().Before(deadline), "haproxy did not mark the unready backend down:\n%s", b.Log())
		time.Sleep(100 * time.Millisecond)
	}
	for i := 0; i < 6; i++ {
		resp, err := client.Get(b.URL() + "/")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, "good", string(body))
	}
	b.Stop()
	_, err := client.Get(b.URL() + "/")
	assert.Error(t, err)
}

// TestConfigErrors: no backends and a backend with spaces are refused.
func TestConfigErrors(t *testing.T) {
	bin := Require(t)
	_, err := start(bin, t.TempDir(), Config{})
	assert.ErrorContains(t, err, "no backends")
	_, err = start(bin, t.TempDir(), Config{Backends: []string{"127.0.0.1:1 backup"}})
	assert.ErrorContains(t, err, "backend")
}

// pemOf encodes a DER certificate as PEM.
func pemOf(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

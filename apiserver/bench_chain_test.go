package apiserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/store/bbolt"
)

// BenchmarkCreateChain measures creates through the whole chain as the
// control plane wires it — HTTPS/HTTP2, x509, Masters → Node → RBAC (as a
// user bound to ClusterRole edit), the default admission chain, the
// durable store, the watch caches — with 32 clients, each on its own
// connection: 1 KiB ConfigMaps and scheduler-benchmark-sized pods. Besides
// ns/op (wall time; it moves with the machine's load) it reports
// cpu-us/op, the process's CPU time (server and clients) per create, the
// steadier figure for A/B comparisons on a shared machine, and how many
// writes the store's commits carried. The figures in
// BENCHMARKS.md come from internal/bench/apiload in a separate process.
func BenchmarkCreateChain(b *testing.B) {
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"data":{"v":"` + strings.Repeat("x", 1024) + `"}}`
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME","labels":{"app":"sim"}},"spec":{"terminationGracePeriodSeconds":0,` +
		`"containers":[{"name":"c","image":"orkit.local/pause:v1","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}}`
	for _, k := range []struct{ name, resource, body string }{{"configmap", "configmaps", cm}, {"pod", "pods", pod}} {
		b.Run(k.name, func(b *testing.B) { benchCreate(b, k.resource, k.body, nil) })
	}
}

func benchCreate(b *testing.B, resource, body string, setup func(*testing.B, *controlplane.ControlPlane, func() *http.Client)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: b.TempDir(), Listen: addr, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	newClient := clientFor(b, cp, "loader")
	bind := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"loader-edit"},` +
		`"subjects":[{"kind":"User","name":"loader","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"edit","apiGroup":"rbac.authorization.k8s.io"}}`
	if code := postRaw(b, clientFor(b, cp, "admin", "system:masters")(), cp.URL+"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", bind); code != http.StatusCreated {
		b.Fatalf("binding: %d", code)
	}
	if setup != nil {
		setup(b, cp, clientFor(b, cp, "admin", "system:masters"))
	}
	st := cp.Store.(*bbolt.Store) // the default backend
	url := cp.URL + "/api/v1/namespaces/default/" + resource
	waitAllowed(b, newClient(), url)
	var n atomic.Int64
	b.SetParallelism(16) // 16 × GOMAXPROCS clients
	b.ResetTimer()
	cpu0, st0 := processCPU(), st.Stats()
	b.RunParallel(func(pb *testing.PB) {
		c := newClient()
		for pb.Next() {
			name := fmt.Sprintf("b-%d", n.Add(1))
			if code := postRaw(b, c, url, strings.Replace(body, "NAME", name, 1)); code != http.StatusCreated {
				b.Errorf("create %s: %d", name, code)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
	if st1 := st.Stats(); st1.Commits > st0.Commits {
		b.ReportMetric(float64(st1.CommittedWrites-st0.CommittedWrites)/float64(st1.Commits-st0.Commits), "writes/commit")
	}
}

// clientFor returns a constructor of HTTP/2 clients, each with its own
// connection, authenticated as user in groups.
func clientFor(b *testing.B, cp *controlplane.ControlPlane, user string, groups ...string) func() *http.Client {
	kp, err := cp.CA.IssueClient(user, groups...)
	if err != nil {
		b.Fatal(err)
	}
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		b.Fatal(err)
	}
	return func() *http.Client {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cp.CA.Pool(), Certificates: []tls.Certificate{cert}}, ForceAttemptHTTP2: true}
		b.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr, Timeout: 30 * time.Second}
	}
}

func postRaw(b *testing.B, c *http.Client, url, body string) int {
	resp, err := c.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		b.Error(err)
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// waitAllowed polls until the new binding reaches the authorizer's cache.
func waitAllowed(b *testing.B, c *http.Client, url string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := c.Get(url + "?limit=1")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the loader is not allowed to list %s after 10s", url)
		}
		time.Sleep(10 * time.Millisecond) // polling, not synchronisation
	}
}

// processCPU returns the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

package apiserver

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orkit/orkit/authz"
)

// BenchmarkMastersUnderFlood measures a system:masters GET on an idle
// server and while ordinary users hold every seat of their priority level
// (requests blocked on their bodies) and 32 more goroutines flood the
// server with requests of that level (answered 429), and with 2,000 idle
// keep-alive connections open besides (issue 15's figure). Reports the
// share of flood requests refused.
func BenchmarkMastersUnderFlood(b *testing.B) {
	b.Run("idle", func(b *testing.B) { benchMastersUnderFlood(b, false, 0) })
	b.Run("flood", func(b *testing.B) { benchMastersUnderFlood(b, true, 0) })
	b.Run("flood+2000-idle-conns", func(b *testing.B) { benchMastersUnderFlood(b, true, 2000) })
}

func benchMastersUnderFlood(b *testing.B, flooded bool, idleConns int) {
	ts := newTestServer(b, func(c *Config) { c.Authorizer = StaticAuthorizer(authz.AlwaysAllow()) })
	openIdleConns(b, ts, idleConns)
	alice := ts.clientAs(b, "alice")
	ts.srv.flow.waitLimit = 0 // the flood is refused rather than queued
	var holders sync.WaitGroup
	var writers []*io.PipeWriter
	holding, flooders := ts.srv.flow.levels[PriorityLevelGlobalDefault].seats, 32
	if !flooded {
		holding, flooders = 0, 0
	}
	for range holding {
		pr, pw := io.Pipe()
		writers = append(writers, pw)
		req, err := http.NewRequest(http.MethodPost, ts.url+"/api/v1/namespaces/default/configmaps", pr)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		holders.Add(1)
		go func() {
			defer holders.Done()
			if resp, err := alice.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	defer func() {
		for _, pw := range writers {
			pw.Close()
		}
		holders.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for ts.srv.flow.busy(PriorityLevelGlobalDefault) < holding && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if ts.srv.flow.busy(PriorityLevelGlobalDefault) < holding {
		b.Fatalf("holders took %d of %d seats", ts.srv.flow.busy(PriorityLevelGlobalDefault), holding)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var flood sync.WaitGroup
	var sent, refused atomic.Int64
	for range flooders {
		flood.Add(1)
		go func() {
			defer flood.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+"/api/v1/namespaces", nil)
				resp, err := alice.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				sent.Add(1)
				if resp.StatusCode == http.StatusTooManyRequests {
					refused.Add(1)
				}
			}
		}()
	}
	defer func() { cancel(); flood.Wait() }()
	b.ResetTimer()
	for range b.N {
		resp, err := ts.http.Get(ts.url + "/api/v1/namespaces/default")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("system:masters got %d", resp.StatusCode)
		}
	}
	b.StopTimer()
	if n := sent.Load(); n > 0 {
		b.ReportMetric(float64(refused.Load())/float64(n), "flood-429-share")
	}
}

// openIdleConns opens n keep-alive connections, each on its own transport,
// authenticated by one request (so the per-address cap on unauthenticated
// connections does not apply), and leaves them idle until the benchmark
// ends.
func openIdleConns(b *testing.B, ts *testServer, n int) {
	if n == 0 {
		return
	}
	kp, err := ts.ca.IssueClient("idler")
	if err != nil {
		b.Fatal(err)
	}
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		b.Fatal(err)
	}
	for range n {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ts.ca.Pool(), Certificates: []tls.Certificate{cert}}, ForceAttemptHTTP2: true}
		b.Cleanup(tr.CloseIdleConnections)
		resp, err := (&http.Client{Transport: tr}).Get(ts.url + "/api/v1/namespaces/default")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

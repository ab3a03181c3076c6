package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// BenchmarkCreateConfigMap measures 1 KiB ConfigMap creates through the
// whole chain (HTTPS, authentication, authorization, admission, durable
// store, watch cache) with b.SetParallelism clients. The figures in
// BENCHMARKS.md come from internal/bench/apiload in a separate process;
// this one is for profiling.
func BenchmarkCreateConfigMap(b *testing.B) {
	ts := newTestServer(b, nil)
	payload := strings.Repeat("x", 1024)
	var n atomic.Int64
	b.SetParallelism(16) // 16 × GOMAXPROCS goroutines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": fmt.Sprintf("b-%d", n.Add(1))}, "data": map[string]string{"v": payload}})
			resp, err := ts.http.Post(ts.url+"/api/v1/namespaces/default/configmaps", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

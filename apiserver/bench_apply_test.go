package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkPatchConfigMap compares server-side apply with a JSON merge
// patch through the whole chain (HTTPS, authentication, admission, field
// ownership, durable store): each operation changes one of 20 values of
// one of 64 ConfigMaps, from 2 × GOMAXPROCS clients. Both record
// managedFields; apply also merges by schema and checks conflicts.
func BenchmarkPatchConfigMap(b *testing.B) {
	for _, kind := range []string{"merge", "apply"} {
		b.Run(kind, func(b *testing.B) {
			ts := newTestServer(b, nil)
			const objects = 64
			data := func(v int64) map[string]string {
				d := map[string]string{}
				for i := 0; i < 20; i++ {
					d[fmt.Sprintf("key-%02d", i)] = fmt.Sprintf("value-%d-%d", i, v)
				}
				return d
			}
			for i := 0; i < objects; i++ {
				body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": fmt.Sprintf("p-%d", i)}, "data": data(0)})
				resp, err := ts.http.Post(ts.url+"/api/v1/namespaces/default/configmaps", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
			var n atomic.Int64
			b.SetParallelism(2)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					name := fmt.Sprintf("p-%d", i%objects)
					url := ts.url + "/api/v1/namespaces/default/configmaps/" + name
					var body []byte
					ct := "application/merge-patch+json"
					if kind == "apply" {
						// The manager owns all 20 values; one changes each time.
						d := data(0)
						d["key-00"] = fmt.Sprintf("v-%d", i)
						body, _ = json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
							"metadata": map[string]any{"name": name}, "data": d})
						url += "?fieldManager=bench&force=true"
						ct = "application/apply-patch+yaml"
					} else {
						body, _ = json.Marshal(map[string]any{"data": map[string]string{"key-00": fmt.Sprintf("v-%d", i)}})
					}
					req, _ := http.NewRequest(http.MethodPatch, url, bytes.NewReader(body))
					req.Header.Set("Content-Type", ct)
					resp, err := ts.http.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		})
	}
}

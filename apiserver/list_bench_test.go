package apiserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// BenchmarkConcurrentBigLists measures the process's resident memory while
// 8 clients list 100,000 ConfigMaps (~1 KiB each, ~110 MB per list
// response) at the same time, again and again (issue 15: lists encoded as
// a stream from the watch cache, RSS target ≤ 1 GB). It reports the RSS
// with the objects cached before the lists (rss-idle-MB) and the peak
// during them (rss-peak-MB). BIGLIST_OBJECTS overrides the object count.
func BenchmarkConcurrentBigLists(b *testing.B) {
	objects := 100_000
	if n, err := strconv.Atoi(os.Getenv("BIGLIST_OBJECTS")); err == nil && n > 0 {
		objects = n
	}
	ts := newTestServer(b, nil)
	st, ok := ts.srv.Storage(coreGVR("configmaps"))
	if !ok {
		b.Fatal("no configmaps storage")
	}
	seedConfigMaps(b, st, objects)
	cache := ts.srv.resources[coreGVR("configmaps")].cache
	rev, err := st.store.Revision(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if err := waitRevision(context.Background(), cache, rev); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	idle := rssBytes(b)

	var peak atomic.Int64
	peak.Store(idle)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // sample RSS until the lists are done
		defer close(sampled)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if r := rssBytes(b); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	const clients = 8
	b.ResetTimer()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range b.N {
				resp, err := ts.http.Get(ts.url + "/api/v1/configmaps")
				if err != nil {
					b.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n < int64(objects)*1000 {
					b.Errorf("list: status %d, %d bytes", resp.StatusCode, n)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(stop)
	<-sampled
	b.ReportMetric(float64(idle)/(1<<20), "rss-idle-MB")
	b.ReportMetric(float64(peak.Load())/(1<<20), "rss-peak-MB")
}

// seedConfigMaps stores n ConfigMaps of ~1 KiB in default through st,
// from 64 writers (the store batches their transactions).
func seedConfigMaps(b *testing.B, st *Storage, n int) {
	b.Helper()
	value := strings.Repeat("x", 900)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Namespace: "default",
					UID: meta.UID(fmt.Sprintf("uid-%d", i)), CreationTimestamp: meta.Now()}, Data: map[string]string{"v": value}}
				if _, err := st.Create(context.Background(), cm); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// rssBytes reads the process's resident set size from /proc/self/status.
func rssBytes(b *testing.B) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

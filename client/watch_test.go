package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

func TestWatchDecoder(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantTypes []string
		wantErr   error // after the frames
		wantMsg   string
	}{
		{"newline separated", `{"type":"ADDED","object":{"a":1}}` + "\n" + `{"type":"DELETED","object":{}}` + "\n", []string{"ADDED", "DELETED"}, io.EOF, ""},
		{"back to back", `{"type":"ADDED","object":{}}{"type":"MODIFIED","object":{}}`, []string{"ADDED", "MODIFIED"}, io.EOF, ""},
		{"braces in strings", `{"type":"ADDED","object":{"s":"}{\"}"}}`, []string{"ADDED"}, io.EOF, ""},
		{"empty", "", nil, io.EOF, ""},
		{"only whitespace", " \n\t\r\n", nil, io.EOF, ""},
		{"cut short", `{"type":"ADDED","object":{"a":`, nil, ErrDecode, "cut short"},
		{"not an object", `["ADDED"]`, nil, ErrDecode, "not '{'"},
		{"not json", `{"type":ADDED}`, nil, ErrDecode, "watch frame"},
		{"unknown type", `{"type":"EXPLODED","object":{}}`, nil, ErrDecode, `unknown type "EXPLODED"`},
		{"no object", `{"type":"ADDED"}`, nil, ErrDecode, "carries no object"},
		{"object not an object", `{"type":"ADDED","object":"x"}`, nil, ErrDecode, "carries no object"},
		{"good then garbage", `{"type":"ADDED","object":{}}` + "\nHTTP/1.1 500", []string{"ADDED"}, ErrDecode, "not '{'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewWatchDecoder(strings.NewReader(tt.in), 0)
			var types []string
			var err error
			for {
				var ev meta.WatchEvent
				if ev, err = d.Next(); err != nil {
					break
				}
				types = append(types, ev.Type)
			}
			assert.Equal(t, tt.wantTypes, types)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestWatchDecoderFrameLimit(t *testing.T) {
	big := `{"type":"ADDED","object":{"s":"` + strings.Repeat("x", 200) + `"}}`
	d := NewWatchDecoder(strings.NewReader(big), 100)
	_, err := d.Next()
	assert.ErrorIs(t, err, ErrDecode)
	assert.Contains(t, err.Error(), "larger than 100 bytes")

	d = NewWatchDecoder(strings.NewReader(big+big), len(big))
	for range 2 {
		_, err := d.Next()
		require.NoError(t, err, "a frame of exactly the limit is fine")
	}
}

// FuzzWatchDecoder: any stream decodes into well-formed frames followed by
// io.EOF or a typed error; nothing panics, no frame exceeds the limit.
func FuzzWatchDecoder(f *testing.F) {
	f.Add([]byte(`{"type":"ADDED","object":{"kind":"Pod"}}` + "\n"))
	f.Add([]byte(`{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}`))
	f.Add([]byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}{"type":"DELETED","object":{"s":"\"}"}}`))
	f.Add([]byte(`{"type":"ADDED","object":{"a":[1,2,{"b":"}"}]}`))
	f.Add([]byte("{{{{{{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 4096
		d := NewWatchDecoder(strings.NewReader(string(data)), limit)
		for range len(data) + 1 {
			ev, err := d.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrDecode) {
					t.Fatalf("untyped error %v", err)
				}
				return
			}
			if ev.Type == "" || len(ev.Object) == 0 || len(ev.Object) > limit || !json.Valid(ev.Object) {
				t.Fatalf("bad frame accepted: %+v", ev)
			}
			if ev.Type != meta.Error {
				_ = decodeEvent[Unstructured](ev) // must not panic either
			}
		}
		t.Fatalf("decoder did not terminate")
	})
}

// watchServer serves a watch whose frames come from frames, then holds
// the stream open until the client goes away.
func watchServer(t *testing.T, frames ...string) *countingServer {
	return newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "1" {
			http.Error(w, "not a watch", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for _, f := range frames {
			_, _ = io.WriteString(w, f+"\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
}

func frame(typ string, obj any) string {
	b, _ := json.Marshal(obj)
	return fmt.Sprintf(`{"type":%q,"object":%s}`, typ, b)
}

func recv[PT any](t *testing.T, ch <-chan Event[PT]) (Event[PT], bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
		return Event[PT]{}, false
	}
}

func TestWatchTypedEvents(t *testing.T) {
	srv := watchServer(t,
		frame(meta.Added, configMap("a")),
		frame(meta.Modified, configMap("a")),
		frame(meta.Bookmark, map[string]any{"kind": "ConfigMap", "apiVersion": "v1", "metadata": map[string]string{"resourceVersion": "99"}}),
		frame(meta.Deleted, configMap("a")),
	)
	c, _ := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := For[core.ConfigMap](c, "default").Watch(ctx, ListOptions{ResourceVersion: "5", AllowWatchBookmarks: true})
	require.NoError(t, err)
	for _, want := range []string{meta.Added, meta.Modified, meta.Bookmark, meta.Deleted} {
		ev, ok := recv(t, ch)
		require.True(t, ok)
		require.NoError(t, ev.Err)
		assert.Equal(t, want, ev.Type)
		if want == meta.Bookmark {
			assert.Equal(t, "99", ev.Object.ResourceVersion)
		} else {
			assert.Equal(t, "v", ev.Object.Data["k"])
		}
	}
	cancel()
	_, ok := recv(t, ch)
	assert.False(t, ok, "the channel closes when ctx ends")
}

// TestWatchGoneAtStart: a 410 answer to the watch request is returned by
// Watch itself.
func TestWatchGoneAtStart(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, apierrors.NewResourceExpired("too old resource version: 5 (100)"))
	})
	c, _ := newTestClient(t, srv.URL)
	_, err := For[core.ConfigMap](c, "default").Watch(context.Background(), ListOptions{ResourceVersion: "5"})
	require.Error(t, err)
	assert.True(t, apierrors.IsResourceExpired(err), "%v", err)
	assert.Equal(t, int64(1), srv.n.Load(), "410 is final, not retried")
}

// TestWatchErrorFrame: an ERROR frame arrives as an event whose Err is the
// server's Status; the channel closes after it.
func TestWatchErrorFrame(t *testing.T) {
	srv := watchServer(t,
		frame(meta.Added, configMap("a")),
		frame(meta.Error, apierrors.NewResourceExpired("too old resource version: 5 (100)")),
		frame(meta.Added, configMap("never")),
	)
	c, _ := newTestClient(t, srv.URL)
	ch, err := For[core.ConfigMap](c, "default").Watch(context.Background(), ListOptions{})
	require.NoError(t, err)
	ev, _ := recv(t, ch)
	assert.Equal(t, meta.Added, ev.Type)
	ev, _ = recv(t, ch)
	assert.Equal(t, meta.Error, ev.Type)
	assert.Nil(t, ev.Object)
	assert.True(t, apierrors.IsResourceExpired(ev.Err), "%v", ev.Err)
	_, ok := recv(t, ch)
	assert.False(t, ok)
}

func TestWatchBadFrames(t *testing.T) {
	tests := []struct {
		name  string
		frame string
	}{
		{"garbage", "<html>oops</html>"},
		{"object of the wrong shape", `{"type":"ADDED","object":{"data":7}}`},
		{"error frame that is not a status", `{"type":"ERROR","object":{"code":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := watchServer(t, tt.frame)
			c, _ := newTestClient(t, srv.URL)
			ch, err := For[core.ConfigMap](c, "default").Watch(context.Background(), ListOptions{})
			require.NoError(t, err)
			ev, _ := recv(t, ch)
			assert.Equal(t, meta.Error, ev.Type)
			assert.ErrorIs(t, ev.Err, ErrDecode)
			_, ok := recv(t, ch)
			assert.False(t, ok)
		})
	}
}

// TestWatchServerEnds: a stream the server closes closes the channel
// without an error event (the caller resumes from its last version).
func TestWatchServerEnds(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, frame(meta.Added, configMap("a")))
	})
	c, _ := newTestClient(t, srv.URL)
	ch, err := For[core.ConfigMap](c, "default").Watch(context.Background(), ListOptions{})
	require.NoError(t, err)
	ev, _ := recv(t, ch)
	assert.Equal(t, meta.Added, ev.Type)
	_, ok := recv(t, ch)
	assert.False(t, ok)
}

func BenchmarkWatchDecoder(b *testing.B) {
	var sb strings.Builder
	for range 1000 {
		sb.WriteString(frame(meta.Modified, testBenchPod()) + "\n")
	}
	stream := sb.String()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewWatchDecoder(strings.NewReader(stream), 0)
		for {
			ev, err := d.Next()
			if err != nil {
				break
			}
			if e := decodeEvent[core.Pod](ev); e.Err != nil {
				b.Fatal(e.Err)
			}
		}
	}
}

func testBenchPod() *core.Pod {
	return &core.Pod{
		TypeMeta:   meta.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: "web-1", Namespace: "default", ResourceVersion: "12345", Labels: map[string]string{"app": "web", "tier": "frontend"}},
		Spec: core.PodSpec{NodeName: "node-1", Containers: []core.Container{{Name: "web", Image: "orkit.local/hello:v1",
			Ports: []core.ContainerPort{{ContainerPort: 8080}}}}},
		Status: core.PodStatus{Phase: core.PodRunning, PodIP: "10.244.0.5"},
	}
}

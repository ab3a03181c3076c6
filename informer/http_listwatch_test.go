package informer

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// fakeAPI answers every request with code and body.
func fakeAPI(t *testing.T, code int, body string) (*HTTPListerWatcher[*core.ConfigMap], *[]string) {
	t.Helper()
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		w.WriteHeader(code)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	lw, err := NewHTTPListerWatcher[*core.ConfigMap](HTTPConfig{BaseURL: srv.URL, Path: "/api/v1/configmaps",
		Client: srv.Client(), LabelSelector: "app=x", MaxFrameBytes: 256})
	require.NoError(t, err)
	return lw, &queries
}

func collect(t *testing.T, ch <-chan Event[*core.ConfigMap]) []Event[*core.ConfigMap] {
	t.Helper()
	var out []Event[*core.ConfigMap]
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatal("watch channel not closed")
		}
	}
}

const cmFrame = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"5"}}}`

func TestHTTPWatchFrames(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		types   []string
		lastErr func(error) bool
	}{
		{"events then clean end", cmFrame + "\n" + `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}` + "\n",
			[]string{Added, Bookmark}, nil},
		{"410 as an ERROR frame", cmFrame + `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old"}}`,
			[]string{Added, Error}, tooOld},
		{"malformed frame", cmFrame + `{"type":"ADDED","object":{"metadata":`, []string{Added, Error}, isDecode},
		{"not JSON", `hello`, []string{Error}, isDecode},
		{"unknown type", `{"type":"EXPLODED","object":{}}`, []string{Error}, isDecode},
		{"no object", `{"type":"ADDED"}`, []string{Error}, isDecode},
		{"object of the wrong shape", `{"type":"ADDED","object":{"metadata":{"name":7}}}`, []string{Error}, isDecode},
		{"ERROR without a Status", `{"type":"ERROR","object":{"foo":1}}`, []string{Error}, isDecode},
		{"oversized frame", `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 4096) + `"}}}`, []string{Error}, isDecode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw, queries := fakeAPI(t, http.StatusOK, tt.body)
			ch, err := lw.Watch(context.Background(), ListOptions{ResourceVersion: "4", AllowWatchBookmarks: true, TimeoutSeconds: 30})
			require.NoError(t, err)
			evs := collect(t, ch)
			var types []string
			for _, ev := range evs {
				types = append(types, ev.Type)
			}
			assert.Equal(t, tt.types, types)
			if tt.lastErr != nil {
				assert.True(t, tt.lastErr(evs[len(evs)-1].Err), "error %v", evs[len(evs)-1].Err)
			}
			assert.Equal(t, "allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=4&timeoutSeconds=30&watch=1", (*queries)[0])
		})
	}
}

func isDecode(err error) bool { return err != nil && strings.Contains(err.Error(), ErrDecode.Error()) }

func TestHTTPErrorsAreStatuses(t *testing.T) {
	tests := []struct {
		name   string
		code   int
		body   string
		check  func(error) bool
		reason meta.StatusReason
	}{
		{"Status body", 410, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"gone"}`, tooOld, meta.StatusReasonExpired},
		{"plain body", 410, "upstream says no", tooOld, meta.StatusReasonExpired},
		{"forbidden", 403, "", apierrors.IsForbidden, meta.StatusReasonForbidden},
		{"garbage 500", 500, "{{{", func(err error) bool { return apierrors.FromError(err).Code == 500 }, meta.StatusReasonInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw, _ := fakeAPI(t, tt.code, tt.body)
			_, err := lw.Watch(context.Background(), ListOptions{})
			assert.True(t, tt.check(err), "watch: %v", err)
			_, _, _, err = lw.List(context.Background(), ListOptions{Limit: 500})
			assert.True(t, tt.check(err), "list: %v", err)
			assert.Equal(t, tt.reason, apierrors.ReasonForError(err))
		})
	}
}

func TestHTTPList(t *testing.T) {
	lw, queries := fakeAPI(t, 200, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"12","continue":"tok"},"items":[{"metadata":{"name":"a","namespace":"ns"}}]}`)
	items, rv, cont, err := lw.List(context.Background(), ListOptions{Limit: 500, Continue: "prev", FieldSelector: "metadata.name=a"})
	require.NoError(t, err)
	require.Len(t, items, 1)
	assert.Equal(t, "a", items[0].Name)
	assert.Equal(t, []string{"12", "tok"}, []string{rv, cont})
	assert.Equal(t, "continue=prev&fieldSelector=metadata.name%3Da&labelSelector=app%3Dx&limit=500", (*queries)[0])

	bad, _ := fakeAPI(t, 200, `{"items":[`)
	_, _, _, err = bad.List(context.Background(), ListOptions{})
	assert.ErrorIs(t, err, ErrDecode)
}

func TestHTTPConfigAndPaths(t *testing.T) {
	for _, cfg := range []HTTPConfig{{}, {BaseURL: "https://x"}, {BaseURL: "::", Path: "/api"}, {BaseURL: "https://x", Path: "api"}} {
		_, err := NewHTTPListerWatcher[*core.Pod](cfg)
		assert.Error(t, err, "%+v", cfg)
	}
	assert.Equal(t, "/api/v1/namespaces/ns/pods", ResourcePath(meta.GroupVersionResource{Version: "v1", Resource: "pods"}, "ns"))
	assert.Equal(t, "/apis/apps/v1/deployments", ResourcePath(meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, ""))
}

func TestHTTPWatchStopsOnContextCancel(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		io.WriteString(w, cmFrame)
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	lw, err := NewHTTPListerWatcher[*core.ConfigMap](HTTPConfig{BaseURL: srv.URL, Path: "/api/v1/configmaps", Client: srv.Client()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := lw.Watch(ctx, ListOptions{})
	require.NoError(t, err)
	ev := <-ch
	assert.Equal(t, Added, ev.Type)
	cancel()
	assert.Empty(t, collect(t, ch))
}

// FuzzWatchStream feeds arbitrary bytes to the watch decoder: it must
// never panic, every event must be a known type with an object or an
// Error with a cause, and nothing may follow an Error.
func FuzzWatchStream(f *testing.F) {
	f.Add([]byte(cmFrame + "\n" + cmFrame))
	f.Add([]byte(`{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}`))
	f.Add([]byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"1"}}}`))
	f.Add([]byte(`{"type":"ADDED","object":null}`))
	f.Add([]byte(`[1,2,3]`))
	lw, err := NewHTTPListerWatcher[*core.ConfigMap](HTTPConfig{BaseURL: "https://127.0.0.1", Path: "/api/v1/configmaps", MaxFrameBytes: 1024})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ch := make(chan Event[*core.ConfigMap])
		go lw.stream(context.Background(), io.NopCloser(strings.NewReader(string(body))), ch)
		sawError := false
		for ev := range ch {
			if sawError {
				t.Fatalf("event after an Error: %+v", ev)
			}
			switch ev.Type {
			case Error:
				sawError = true
				if ev.Err == nil {
					t.Fatal("Error event without a cause")
				}
			case Added, Modified, Deleted, Bookmark:
				if ev.Err != nil {
					t.Fatalf("%s event with an error", ev.Type)
				}
			default:
				t.Fatalf("unknown event type %q", ev.Type)
			}
		}
	})
}

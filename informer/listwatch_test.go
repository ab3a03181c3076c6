package informer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// fakeAPI answers lists of configmaps in "ns" with two items and watches
// with watch, recording the query of each request. The lister-watcher it
// returns selects app=web.
func fakeAPI(t *testing.T, watch http.HandlerFunc) (*ResourceListerWatcher[core.ConfigMap, *core.ConfigMap], func() []url.Values) {
	t.Helper()
	var (
		mu      sync.Mutex
		queries []url.Values
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "1" {
			watch(w, r)
			return
		}
		fmt.Fprint(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"next"},"items":[
			{"metadata":{"name":"a","namespace":"ns","resourceVersion":"8"}},
			{"metadata":{"name":"b","namespace":"ns","resourceVersion":"9"}}]}`)
	}))
	t.Cleanup(srv.Close)
	lw := NewListerWatcher(client.For[core.ConfigMap](testClient(t, srv.URL), "ns"), "app=web", "")
	return lw, func() []url.Values {
		mu.Lock()
		defer mu.Unlock()
		return append([]url.Values(nil), queries...)
	}
}

// testClient is a client of url without retries or rate limit.
func testClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{Host: url, QPS: -1}, client.WithLogger(quietLogger()),
		client.WithRetry(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	return c
}

func TestListerWatcherList(t *testing.T) {
	lw, queries := fakeAPI(t, nil)
	items, rv, cont, err := lw.List(context.Background(), ListOptions{Limit: 500, Continue: "tok"})
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, []string{"a", "b"}, []string{items[0].Name, items[1].Name})
	assert.Equal(t, []string{"10", "next"}, []string{rv, cont})
	q := queries()[0]
	assert.Equal(t, "app=web", q.Get("labelSelector"), "the lister-watcher's selector")
	assert.Equal(t, []string{"500", "tok"}, []string{q.Get("limit"), q.Get("continue")})

	_, _, _, err = lw.List(context.Background(), ListOptions{LabelSelector: "app=db"})
	require.NoError(t, err)
	assert.Equal(t, "app=db", queries()[1].Get("labelSelector"), "the caller's selector wins")
}

func TestListerWatcherWatchEventsAndErrors(t *testing.T) {
	lw, queries := fakeAPI(t, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"11"}}}`)
		fmt.Fprintln(w, `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}`)
		fmt.Fprintln(w, `{"type":"MODIFIED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"13"}}}`)
		fmt.Fprintln(w, `{"type":"DELETED","object":["not","an","object"]}`)
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"never-seen"}}}`)
	})
	ch, err := lw.Watch(context.Background(), ListOptions{ResourceVersion: "10", AllowWatchBookmarks: true, TimeoutSeconds: 30})
	require.NoError(t, err)
	var got []string
	var last Event[*core.ConfigMap]
	for ev := range ch {
		last = ev
		if ev.Type == Error {
			got = append(got, ev.Type)
			continue
		}
		got = append(got, ev.Type+" "+ev.Object.ResourceVersion)
	}
	assert.Equal(t, []string{"ADDED 11", "BOOKMARK 12", "MODIFIED 13", "ERROR"}, got, "the stream ends at the bad frame")
	assert.ErrorIs(t, last.Err, client.ErrDecode)
	q := queries()[0]
	assert.Equal(t, []string{"10", "true", "30", "app=web"},
		[]string{q.Get("resourceVersion"), q.Get("allowWatchBookmarks"), q.Get("timeoutSeconds"), q.Get("labelSelector")})
}

// TestListerWatcherTooOld: the server's Status reason survives the trip,
// whether the 410 answers the request or arrives as an ERROR frame, and
// the reflector's relist test accepts both Expired (kube-apiserver's
// answer to a too-old resourceVersion) and Gone.
func TestListerWatcherTooOld(t *testing.T) {
	expired := `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version: 1 (10)"}`
	tests := []struct {
		name   string
		watch  http.HandlerFunc
		frame  bool // the error arrives as an ERROR event, not from Watch
		reason meta.StatusReason
	}{
		{"Expired status", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusGone)
			fmt.Fprint(w, expired)
		}, false, meta.StatusReasonExpired},
		{"plain 410", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "gone", http.StatusGone)
		}, false, meta.StatusReasonGone},
		{"Expired ERROR frame", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, `{"type":"ERROR","object":%s}`, expired)
		}, true, meta.StatusReasonExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw, _ := fakeAPI(t, tt.watch)
			ch, err := lw.Watch(context.Background(), ListOptions{ResourceVersion: "1"})
			if tt.frame {
				require.NoError(t, err)
				ev := <-ch
				require.Equal(t, Error, ev.Type)
				err = ev.Err
			}
			require.Error(t, err)
			assert.Equal(t, tt.reason, apierrors.ReasonForError(err), "%v", err)
			assert.True(t, tooOld(err), "relist on %v", err)
		})
	}
	assert.False(t, tooOld(apierrors.NewConflict(meta.GroupResource{Resource: "configmaps"}, "a", fmt.Errorf("modified"))))
}

func TestListerWatcherWatchStopsWithContext(t *testing.T) {
	release := make(chan struct{})
	lw, _ := fakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"11"}}}`)
		w.(http.Flusher).Flush()
		select { // hold the stream open
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := lw.Watch(ctx, ListOptions{})
	require.NoError(t, err)
	ev := <-ch
	assert.Equal(t, Added, ev.Type)
	cancel()
	for range ch { // drains and ends: the channel is closed
	}
}

func TestForResourceNotRegistered(t *testing.T) {
	type unknown struct{ core.ConfigMap }
	f := NewFactory()
	_, err := ForResource[unknown](f, testClient(t, "http://127.0.0.1:1"), Scope{}, Config[*unknown]{})
	assert.ErrorIs(t, err, client.ErrNotRegistered)
	assert.Empty(t, f.Names())
}

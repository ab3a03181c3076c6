package controller

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
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// sourceServer answers lists and watches of configmaps in "ns" with the
// given watch body, recording the query of each request.
func sourceServer(t *testing.T, watch func(w http.ResponseWriter, r *http.Request)) (*ResourceListerWatcher[core.ConfigMap, *core.ConfigMap], func() []url.Values) {
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
	c, err := client.New(&client.Config{Host: srv.URL}, client.WithLogger(quietLogger()), client.WithRetry(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	lw := NewListerWatcher(client.For[core.ConfigMap](c, "ns"), "app=web", "")
	return lw, func() []url.Values {
		mu.Lock()
		defer mu.Unlock()
		return append([]url.Values(nil), queries...)
	}
}

func TestListerWatcherList(t *testing.T) {
	lw, queries := sourceServer(t, nil)
	items, rv, cont, err := lw.List(context.Background(), informer.ListOptions{Limit: 500, Continue: "tok"})
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, []string{"a", "b"}, []string{items[0].Name, items[1].Name})
	assert.Equal(t, "10", rv)
	assert.Equal(t, "next", cont)
	q := queries()[0]
	assert.Equal(t, "app=web", q.Get("labelSelector"), "the adapter's selector")
	assert.Equal(t, "500", q.Get("limit"))
	assert.Equal(t, "tok", q.Get("continue"))

	_, _, _, err = lw.List(context.Background(), informer.ListOptions{LabelSelector: "app=db"})
	require.NoError(t, err)
	assert.Equal(t, "app=db", queries()[1].Get("labelSelector"), "the informer's selector wins")
}

func TestListerWatcherWatchConvertsEventsAndErrors(t *testing.T) {
	lw, queries := sourceServer(t, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"11"}}}`)
		fmt.Fprintln(w, `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}`)
		fmt.Fprintln(w, `{"type":"MODIFIED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"13"}}}`)
		fmt.Fprintln(w, `{"type":"DELETED","object":["not","an","object"]}`)
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"never-seen"}}}`)
	})
	ch, err := lw.Watch(context.Background(), informer.ListOptions{ResourceVersion: "10", AllowWatchBookmarks: true, TimeoutSeconds: 30})
	require.NoError(t, err)
	var got []string
	var last informer.Event[*core.ConfigMap]
	for ev := range ch {
		last = ev
		if ev.Type == informer.Error {
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

func TestListerWatcherWatchGone(t *testing.T) {
	lw, _ := sourceServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusGone)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version: 1 (10)"}`)
	})
	_, err := lw.Watch(context.Background(), informer.ListOptions{ResourceVersion: "1"})
	require.Error(t, err)
	assert.True(t, apierrors.IsGone(err), "a 410 is returned as the error: %v", err)
}

func TestListerWatcherWatchStopsWithContext(t *testing.T) {
	release := make(chan struct{})
	lw, _ := sourceServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"11"}}}`)
		w.(http.Flusher).Flush()
		select { // hold the stream open
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := lw.Watch(ctx, informer.ListOptions{})
	require.NoError(t, err)
	ev := <-ch
	assert.Equal(t, informer.Added, ev.Type)
	cancel()
	for range ch { // drains and ends: the channel is closed
	}
}

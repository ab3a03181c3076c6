package bbolt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "orkit-example")
	defer os.RemoveAll(dir)
	s, err := bbolt.Open(filepath.Join(dir, "state.db"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	rev, _ := s.Create(ctx, "/pods/default/web", []byte(`{"replicas":1}`))
	_, err = s.Update(ctx, "/pods/default/web", []byte(`{"replicas":2}`), rev-1)
	fmt.Println(err != nil, rev)
	rev, _ = s.Update(ctx, "/pods/default/web", []byte(`{"replicas":2}`), rev)
	kv, _ := s.Get(ctx, "/pods/default/web")
	fmt.Println(string(kv.Value), kv.CreateRevision, kv.ModRevision == rev)
	// Output:
	// true 1
	// {"replicas":2} 1 true
}

func ExampleStore_Watch() {
	dir, _ := os.MkdirTemp("", "orkit-example")
	defer os.RemoveAll(dir)
	s, _ := bbolt.Open(filepath.Join(dir, "state.db"), nil)
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _ = s.Create(ctx, "/pods/a", []byte("1"))
	// Replay everything after revision 1, then follow live writes.
	events, _ := s.Watch(ctx, "/pods/", 1)
	_, _ = s.Create(ctx, "/pods/b", []byte("2"))
	_, _, _ = s.Delete(ctx, "/pods/a", 0)
	for range 2 {
		ev := <-events
		fmt.Println(ev.Revision, ev.Type == store.EventDelete, ev.KV.Key)
	}
	// Output:
	// 2 false /pods/b
	// 3 true /pods/a
}

func ExampleStore_List() {
	dir, _ := os.MkdirTemp("", "orkit-example")
	defer os.RemoveAll(dir)
	s, _ := bbolt.Open(filepath.Join(dir, "state.db"), nil)
	defer s.Close()
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		_, _ = s.Create(ctx, "/nodes/"+name, nil)
	}
	opts := store.ListOptions{Limit: 2}
	for {
		page, err := s.List(ctx, "/nodes/", opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, kv := range page.KVs {
			fmt.Print(kv.Key, " ")
		}
		fmt.Println("remaining", page.Remaining)
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	// Output:
	// /nodes/a /nodes/b remaining 3
	// /nodes/c /nodes/d remaining 1
	// /nodes/e remaining 0
}

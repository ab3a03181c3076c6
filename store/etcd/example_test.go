package etcd_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/etcd"
)

// Example connects to a cluster, writes with compare-and-swap and watches
// from a revision. (Not run: it needs an etcd cluster at these addresses.)
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := etcd.New(ctx, etcd.Config{
		Endpoints: []string{"http://127.0.0.1:2379", "http://127.0.0.2:2379", "http://127.0.0.3:2379"},
		Prefix:    "/tenant-a", // optional: share the etcd with other orkit clusters
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	rev, err := s.Create(ctx, "/registry/configmaps/default/app", []byte(`{"data":{}}`))
	if err != nil {
		log.Fatal(err)
	}
	events, err := s.Watch(ctx, "/registry/configmaps/", rev)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := s.Update(ctx, "/registry/configmaps/default/app", []byte(`{"data":{"k":"v"}}`), rev); err != nil {
		log.Fatal(err) // store.ErrConflict if someone else wrote it first
	}
	ev := <-events
	fmt.Println(ev.Type == store.EventPut, ev.KV.Key, ev.Prev.ModRevision == rev)
}

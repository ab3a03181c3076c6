package record_test

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
)

// A process makes one Writer per client, runs it, and gives each of its
// components a Recorder with its own source.
func Example() {
	c, err := client.New(&client.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	w, err := record.New(c, record.Config{Source: core.EventSource{Component: "kubelet", Host: "node-1"}})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()

	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}}
	w.Eventf(record.WithFieldPath(pod, record.ContainerFieldPath("web", false)),
		core.EventTypeNormal, "Started", "Started container %s", "web")

	cancel() // Run writes what it holds (within FlushTimeout), then returns
	<-done
}

// Fake keeps Events in memory for the tests of a component.
func ExampleFake() {
	f := &record.Fake{}
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}}
	f.Eventf(record.WithFieldPath(pod, record.ContainerFieldPath("web", false)), core.EventTypeNormal, "Created", "Created container: %s", "web")
	for _, e := range f.Events() {
		fmt.Println(e)
	}
	// Output: Normal Created web spec.containers{web}: Created container: web
}

package admission

import (
	"context"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/meta"
)

// A Go initializer that labels every new ConfigMap before anyone else sees
// it. The Runner acts when the initializer heads
// metadata.initializers.pending, then removes it from the list. The source
// here is the in-memory one of the tests; in a cluster it is the API
// server in-process, or a client.
func ExampleRunner() {
	labeler := InitializerFunc{
		InitializerName: "labels.example.com",
		Func: func(_ context.Context, obj meta.Object) error {
			m := obj.GetObjectMeta()
			if m.Labels == nil {
				m.Labels = map[string]string{}
			}
			m.Labels["team"] = "web"
			return nil
		},
	}
	source := newMemSource()
	r, err := NewRunner(source, []meta.GroupVersionResource{{Version: "v1", Resource: "configmaps"}}, []Initializer{labeler})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()

	source.create("settings", "labels.example.com")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cm, _ := source.get("settings"); cm.IsInitialized() {
			fmt.Println(cm.Labels["team"], len(cm.Initializers.Pending))
			break
		}
	}
	cancel()
	fmt.Println(<-done)
	// Output:
	// web 0
	// <nil>
}

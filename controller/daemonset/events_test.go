package daemonset

import (
	"context"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// logPodEvents records the pod events of the default namespace and logs
// them when the test fails (the order of creations, adoptions and
// deletions explains most failures).
func logPodEvents(t *testing.T, c *client.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := client.For[core.Pod](c, "default").Watch(ctx, client.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("watch pods: %v", err)
	}
	var evs []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			p := ev.Object
			ref := ""
			if r := meta.ControllerOf(&p.ObjectMeta); r != nil {
				ref = "owned"
			}
			evs = append(evs, ev.Type+" "+p.Name+" "+p.Spec.NodeName+" "+ref+" del="+boolStr(p.DeletionTimestamp != nil)+" ready="+boolStr(core.IsPodReady(p)))
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			for _, e := range evs {
				t.Log(e)
			}
		}
	})
}

func boolStr(b bool) string {
	if b {
		return "y"
	}
	return "n"
}

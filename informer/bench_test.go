package informer

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// benchPod is a pod as a Deployment makes it, with the metadata a real
// cluster adds: managedFields and a last-applied annotation.
func benchPod(i int) *core.Pod {
	name := fmt.Sprintf("web-7d9f8c6b5-%06d", i)
	return &core.Pod{
		TypeMeta: meta.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%50), Name: name, UID: meta.UID(fmt.Sprintf("uid-%08d", i)),
			Labels:      map[string]string{"app": "web", "pod-template-hash": "7d9f8c6b5", "tier": "frontend"},
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat(`{"k":"v"}`, 40)},
			OwnerReferences: []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f8c6b5",
				UID: "rs-uid"}},
			ManagedFields: []meta.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", FieldsType: "FieldsV1",
					FieldsV1: meta.RawJSON(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{}},"f:spec":{"f:containers":{}}}`)},
				{Manager: "kubelet", Operation: "Update", APIVersion: "v1", FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: meta.RawJSON(`{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{}}}`)},
			},
		},
		Spec: core.PodSpec{
			NodeName: fmt.Sprintf("node-%d", i%1000),
			Containers: []core.Container{{
				Name: "web", Image: "orkit.local/hello:v1",
				Ports: []core.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}},
				Resources: core.ResourceRequirements{Requests: core.ResourceList{
					"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")}},
				Env: []core.EnvVar{{Name: "MODE", Value: "prod"}},
			}},
		},
		Status: core.PodStatus{Phase: "Running", PodIP: fmt.Sprintf("10.244.%d.%d", i/250%256, i%250+1)},
	}
}

func dropMetadata(p *core.Pod) (*core.Pod, error) {
	p.ManagedFields, p.Annotations = nil, nil
	return p, nil
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkInformerSync100kPods measures the time to list 100,000 pods
// into a synced cache (decoding JSON as a client does) and the heap the
// cache holds per pod, with and without a Transform.
func BenchmarkInformerSync100kPods(b *testing.B) {
	const n = 100000
	lw := newMemLW[*core.Pod](10)
	for i := range n {
		lw.put(benchPod(i))
	}
	for _, tc := range []struct {
		name      string
		transform func(*core.Pod) (*core.Pod, error)
	}{{"plain", nil}, {"transform", dropMetadata}} {
		b.Run(tc.name, func(b *testing.B) {
			var bytesPerObj float64
			for range b.N {
				before := heapInUse()
				inf := New[*core.Pod](lw, Config[*core.Pod]{Transform: tc.transform, Logger: quietLogger(),
					Indexers: Indexers[*core.Pod]{NodeNameIndex: IndexPodsByNodeName}})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				start := time.Now()
				go func() { defer close(done); _ = inf.Run(ctx) }()
				WaitForCacheSync(ctx, inf.HasSynced)
				b.ReportMetric(time.Since(start).Seconds(), "sync-s")
				after := heapInUse()
				if inf.Indexer().Len() != n {
					b.Fatalf("cache has %d pods", inf.Indexer().Len())
				}
				bytesPerObj = float64(after-before) / n
				cancel()
				<-done
			}
			b.ReportMetric(bytesPerObj, "B/pod")
		})
	}
}

// BenchmarkHandlerEvents measures events per second from a watch burst to
// a handler: b.N updates written as fast as possible, timed until the
// handler has seen them all.
func BenchmarkHandlerEvents(b *testing.B) {
	lw := newMemLW[*core.Pod](1 << 21)
	const objs = 1000
	pods := make([]*core.Pod, objs)
	for i := range objs {
		pods[i] = benchPod(i)
		lw.put(pods[i])
	}
	inf := New[*core.Pod](lw, Config[*core.Pod]{Logger: quietLogger(), InitialBackoff: time.Millisecond})
	var seen atomic.Int64
	inf.AddEventHandler(HandlerFuncs[*core.Pod]{UpdateFunc: func(_, _ *core.Pod) { seen.Add(1) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	WaitForCacheSync(ctx, inf.HasSynced)
	b.ResetTimer()
	for i := range b.N {
		lw.put(pods[i%objs])
	}
	for seen.Load() < int64(b.N) {
		time.Sleep(100 * time.Microsecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cancel()
	<-done
}

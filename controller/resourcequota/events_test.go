package resourcequota

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/informer"
)

// captureSource is a Source that keeps the handler registered on it.
type captureSource[T meta.Object] struct{ h *informer.Handler[T] }

func (c captureSource[T]) AddEventHandler(h informer.Handler[T], _ ...informer.HandlerOption) *informer.Registration {
	*c.h = h
	return nil
}

// passed reports whether an event sent through a filtered source reaches
// the controller's handler.
func passed[T meta.Object](wrap func(captureSource[T]) interface {
	AddEventHandler(informer.Handler[T], ...informer.HandlerOption) *informer.Registration
}, send func(informer.Handler[T])) bool {
	var inner informer.Handler[T]
	src := wrap(captureSource[T]{h: &inner})
	var got bool
	src.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { got = true },
		UpdateFunc: func(T, T) { got = true },
		DeleteFunc: func(any) { got = true },
	})
	send(inner)
	return got
}

func quantity(s string) resource.Quantity { return resource.MustParse(s) }

// TestQuotaEvents: a quota is recomputed when it is added, when its
// spec.hard changes and while its status falls short of spec.hard, not on
// the status changes of admission charges.
func TestQuotaEvents(t *testing.T) {
	hard := core.ResourceList{core.ResourceServicesNodePorts: quantity("1")}
	synced := &core.ResourceQuota{ObjectMeta: meta.ObjectMeta{Name: "q"}, Spec: core.ResourceQuotaSpec{Hard: hard},
		Status: core.ResourceQuotaStatus{Hard: hard, Used: core.ResourceList{core.ResourceServicesNodePorts: quantity("0")}}}
	charged := meta.DeepCopy(synced)
	charged.Status.Used[core.ResourceServicesNodePorts] = quantity("1")
	raised := meta.DeepCopy(charged)
	raised.Spec.Hard = core.ResourceList{core.ResourceServicesNodePorts: quantity("2")}
	unmirrored := meta.DeepCopy(synced)
	unmirrored.Status = core.ResourceQuotaStatus{}
	wrap := func(c captureSource[*core.ResourceQuota]) interface {
		AddEventHandler(informer.Handler[*core.ResourceQuota], ...informer.HandlerOption) *informer.Registration
	} {
		return quotaEvents(c)
	}
	cases := []struct {
		name string
		send func(informer.Handler[*core.ResourceQuota])
		want bool
	}{
		{"add", func(h informer.Handler[*core.ResourceQuota]) { h.OnAdd(synced, false) }, true},
		{"admission charge", func(h informer.Handler[*core.ResourceQuota]) { h.OnUpdate(synced, charged) }, false},
		{"resync", func(h informer.Handler[*core.ResourceQuota]) { h.OnUpdate(charged, charged) }, false},
		{"spec.hard changed", func(h informer.Handler[*core.ResourceQuota]) { h.OnUpdate(charged, raised) }, true},
		{"status not computed", func(h informer.Handler[*core.ResourceQuota]) { h.OnUpdate(unmirrored, unmirrored) }, true},
		{"delete", func(h informer.Handler[*core.ResourceQuota]) { h.OnDelete(synced) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, passed(wrap, tc.send))
		})
	}
}

// TestObjectEvents: an object's add never recomputes its namespace's
// quotas (the admission plugin charged it; recomputing from an informer
// that does not hold it yet took the charge back, and the conformance
// spec "ResourceQuota should create a ResourceQuota and capture the life
// of a service" saw a LoadBalancer admitted past a services.nodeports
// quota a NodePort Service had used). Updates that change its charge, and
// deletes, do.
func TestObjectEvents(t *testing.T) {
	now := func() time.Time { return time.Unix(1000, 0) }
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "s", Namespace: "ns"},
		Spec: core.ServiceSpec{Type: core.ServiceTypeClusterIP, Ports: []core.ServicePort{{Port: 80}}}}
	nodePort := meta.DeepCopy(svc)
	nodePort.Spec.Type = core.ServiceTypeNodePort
	relabelled := meta.DeepCopy(svc)
	relabelled.Labels = map[string]string{"a": "b"}
	svcWrap := func(c captureSource[*core.Service]) interface {
		AddEventHandler(informer.Handler[*core.Service], ...informer.HandlerOption) *informer.Registration
	} {
		return objectEvents[*core.Service](c, meta.GroupResource{Resource: "services"}, now)
	}
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns"}, Status: core.PodStatus{Phase: core.PodRunning}}
	done := meta.DeepCopy(pod)
	done.Status.Phase = core.PodSucceeded
	ready := meta.DeepCopy(pod)
	ready.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue}}
	podWrap := func(c captureSource[*core.Pod]) interface {
		AddEventHandler(informer.Handler[*core.Pod], ...informer.HandlerOption) *informer.Registration
	} {
		return objectEvents[*core.Pod](c, meta.GroupResource{Resource: "pods"}, now)
	}
	claim := &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: core.PersistentVolumeClaimSpec{Resources: core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: quantity("1Gi")}}}}
	grown := meta.DeepCopy(claim)
	grown.Spec.Resources.Requests[core.ResourceStorage] = quantity("2Gi")
	claimWrap := func(c captureSource[*core.PersistentVolumeClaim]) interface {
		AddEventHandler(informer.Handler[*core.PersistentVolumeClaim], ...informer.HandlerOption) *informer.Registration
	} {
		return objectEvents[*core.PersistentVolumeClaim](c, meta.GroupResource{Resource: "persistentvolumeclaims"}, now)
	}
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"service add", passed(svcWrap, func(h informer.Handler[*core.Service]) { h.OnAdd(nodePort, false) }), false},
		{"service initial list", passed(svcWrap, func(h informer.Handler[*core.Service]) { h.OnAdd(nodePort, true) }), false},
		{"service becomes NodePort", passed(svcWrap, func(h informer.Handler[*core.Service]) { h.OnUpdate(svc, nodePort) }), true},
		{"service labels", passed(svcWrap, func(h informer.Handler[*core.Service]) { h.OnUpdate(svc, relabelled) }), false},
		{"service delete", passed(svcWrap, func(h informer.Handler[*core.Service]) { h.OnDelete(svc) }), true},
		{"service tombstone", passed(svcWrap, func(h informer.Handler[*core.Service]) {
			h.OnDelete(informer.DeletedFinalStateUnknown[*core.Service]{Key: "ns/s", Obj: svc})
		}), true},
		{"pod add", passed(podWrap, func(h informer.Handler[*core.Pod]) { h.OnAdd(pod, false) }), false},
		{"pod finishes", passed(podWrap, func(h informer.Handler[*core.Pod]) { h.OnUpdate(pod, done) }), true},
		{"pod becomes ready", passed(podWrap, func(h informer.Handler[*core.Pod]) { h.OnUpdate(pod, ready) }), false},
		{"claim grows", passed(claimWrap, func(h informer.Handler[*core.PersistentVolumeClaim]) { h.OnUpdate(claim, grown) }), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.got) })
	}
}

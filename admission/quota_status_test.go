package admission

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func TestQuotaResources(t *testing.T) {
	hard := core.ResourceList{
		core.ResourcePods: one(), "count/replicasets.apps": one(), core.ResourceRequestsCPU: one(), core.ResourceLimitsMemory: one(),
		core.ResourceRequestsStorage: one(), core.ResourceServicesNodePorts: one(), core.ResourceSecrets: one(),
		"gold.storageclass.storage.k8s.io/persistentvolumeclaims": one(), "requests.example.com/gpu": one(), "bogus": one(),
		"count/": one(),
	}
	assert.Equal(t, []meta.GroupResource{
		{Group: "apps", Resource: "replicasets"}, {Resource: "persistentvolumeclaims"}, {Resource: "pods"},
		{Resource: "secrets"}, {Resource: "services"},
	}, QuotaResources(hard))
}

func TestQuotaUsed(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(name string, phase core.PodPhase, cpu string, deadline *int64) *core.Pod {
		p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name}, Status: core.PodStatus{Phase: phase},
			Spec: core.PodSpec{ActiveDeadlineSeconds: deadline, Containers: []core.Container{{Name: "c"}}}}
		if cpu != "" {
			p.Spec.Containers[0].Resources = core.ResourceRequirements{
				Requests: core.ResourceList{core.ResourceCPU: resource.MustParse(cpu), core.ResourceMemory: resource.MustParse("64Mi")},
				Limits:   core.ResourceList{core.ResourceCPU: resource.MustParse(cpu), core.ResourceMemory: resource.MustParse("64Mi")}}
		}
		return p
	}
	grace := int64(30)
	stuck := pod("stuck", core.PodRunning, "1", nil)
	stuck.DeletionTimestamp, stuck.DeletionGracePeriodSeconds = &meta.Time{Time: now.Add(-time.Minute)}, &grace
	leaving := pod("leaving", core.PodRunning, "1", nil)
	leaving.DeletionTimestamp, leaving.DeletionGracePeriodSeconds = &meta.Time{Time: now}, &grace
	ten := int64(10)
	pods := []meta.Object{
		pod("a", core.PodRunning, "500m", nil), pod("b", core.PodPending, "250m", &ten), pod("best-effort", core.PodRunning, "", nil),
		pod("done", core.PodSucceeded, "1", nil), pod("failed", core.PodFailed, "1", nil), stuck, leaving,
	}
	lb := core.ServiceTypeLoadBalancer
	objects := func(gr meta.GroupResource) ([]meta.Object, error) {
		switch gr.Resource {
		case "pods":
			return pods, nil
		case "services":
			return []meta.Object{&core.Service{Spec: core.ServiceSpec{Type: lb, Ports: []core.ServicePort{{Port: 80}, {Port: 443}}}},
				&core.Service{}}, nil
		case "replicasets":
			return []meta.Object{&apps.ReplicaSet{}}, nil
		}
		return nil, errors.New("not served")
	}
	q := func(hard core.ResourceList, scopes ...core.ResourceQuotaScope) *core.ResourceQuota {
		return &core.ResourceQuota{Spec: core.ResourceQuotaSpec{Hard: hard, Scopes: scopes}}
	}
	tests := []struct {
		name  string
		quota *core.ResourceQuota
		want  map[core.ResourceName]string
	}{
		{"counts, compute, services; finished and stuck pods left out", q(core.ResourceList{
			core.ResourcePods: one(), core.ResourceRequestsCPU: one(), core.ResourceLimitsMemory: one(), core.ResourceCPU: one(),
			core.ResourceServices: one(), core.ResourceServicesLoadBalancers: one(), core.ResourceServicesNodePorts: one(),
			"count/replicasets.apps": one(), "requests.example.com/gpu": one(),
		}), map[core.ResourceName]string{
			"pods": "4", "requests.cpu": "1750m", "cpu": "1750m", "limits.memory": "192Mi", "services": "2",
			"services.loadbalancers": "1", "services.nodeports": "2", "count/replicasets.apps": "1", "requests.example.com/gpu": "0",
		}},
		{"terminating scope", q(core.ResourceList{core.ResourcePods: one()}, core.ResourceQuotaScopeTerminating),
			map[core.ResourceName]string{"pods": "1"}},
		{"best-effort scope", q(core.ResourceList{core.ResourcePods: one()}, core.ResourceQuotaScopeBestEffort),
			map[core.ResourceName]string{"pods": "1"}},
		{"scoped quota counts no services", q(core.ResourceList{core.ResourceServices: one()}, core.ResourceQuotaScopeNotTerminating),
			map[core.ResourceName]string{"services": "0"}},
		{"unserved resource and unknown names left out", q(core.ResourceList{"count/widgets.example.com": one(), "bogus": one()}),
			map[core.ResourceName]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[core.ResourceName]string{}
			for n, v := range QuotaUsed(tt.quota, objects, now) {
				got[n] = v.String()
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

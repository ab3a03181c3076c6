package admission_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// quotaStore is the smallest QuotaStore: one namespace, CAS on
// resourceVersion. The API server implements it over its storage.
type quotaStore struct {
	mu sync.Mutex
	q  core.ResourceQuota
}

func (s *quotaStore) List(context.Context, string) ([]*core.ResourceQuota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return []*core.ResourceQuota{meta.DeepCopy(&s.q)}, nil
}

func (s *quotaStore) UpdateStatus(_ context.Context, q *core.ResourceQuota) (*core.ResourceQuota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.ResourceVersion != s.q.ResourceVersion {
		return nil, apierrors.NewConflict(meta.GroupResource{Resource: "resourcequotas"}, q.Name, fmt.Errorf("stale"))
	}
	s.q.Status = q.Status
	s.q.ResourceVersion += "'"
	return meta.DeepCopy(&s.q), nil
}

// A chain of the built-in plugins as the API server runs it: mutators,
// then validators; the first refusal wins and keeps its Status.
func Example() {
	web := &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "web"}, Status: core.NamespaceStatus{Phase: core.NamespaceActive}}
	namespaces := admission.NamespaceGetterFunc(func(name string) (*core.Namespace, bool) { return web, name == "web" })
	limits := admission.LimitRangeListerFunc(func(string) []*core.LimitRange {
		return []*core.LimitRange{{Spec: core.LimitRangeSpec{Limits: []core.LimitRangeItem{{
			Type:           core.LimitTypeContainer,
			Default:        core.ResourceList{core.ResourceCPU: resource.MustParse("500m")},
			DefaultRequest: core.ResourceList{core.ResourceCPU: resource.MustParse("250m")},
		}}}}}
	})
	quotas := &quotaStore{q: core.ResourceQuota{ObjectMeta: meta.ObjectMeta{Name: "compute", Namespace: "web"},
		Spec: core.ResourceQuotaSpec{Hard: core.ResourceList{
			core.ResourcePods: resource.MustParse("1"), core.ResourceRequestsCPU: resource.MustParse("1")}}}}

	lr := admission.NewLimitRanger(limits)
	chain := &admission.Chain{
		Mutators: []admission.Mutator{lr},
		Validators: []admission.Validator{admission.NewNamespaceLifecycle(namespaces, nil), lr,
			admission.NewSecurityContextDeny(), admission.NewResourceQuota(quotas)},
	}
	create := func(ns, name string) error {
		pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name},
			Spec: core.PodSpec{Containers: []core.Container{{Name: "app", Image: "hello"}}}}
		a := &admission.Attributes{Operation: admission.Create, Resource: meta.GroupVersionResource{Version: "v1", Resource: "pods"},
			Namespace: ns, Name: name, Object: pod}
		if err := chain.Admit(context.Background(), a); err != nil {
			return err
		}
		if err := chain.Validate(context.Background(), a); err != nil {
			return err
		}
		fmt.Println(pod.Annotations[admission.LimitRangerAnnotation])
		return nil
	}
	for _, p := range [][2]string{{"web", "a"}, {"web", "b"}, {"gone", "c"}} {
		if err := create(p[0], p[1]); err != nil {
			st := apierrors.FromError(err)
			fmt.Println(st.Code, st.Message)
		}
	}
	fmt.Println("used:", quotas.q.Status.Used.Pods(), quotas.q.Status.Used.Name(core.ResourceRequestsCPU, resource.DecimalSI))
	// Output:
	// LimitRanger plugin set: cpu request for container app; cpu limit for container app
	// 403 pods "b" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=1, limited: pods=1
	// 404 namespaces "gone" not found
	// used: 1 250m
}

package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memQuotaStore is a QuotaStore over a map that enforces the
// compare-and-swap on resourceVersion, as the API server does.
type memQuotaStore struct {
	mu        sync.Mutex
	rv        int
	quotas    map[string]*core.ResourceQuota // by namespace/name
	updates   int
	conflicts int
	listErr   error
	// beforeUpdate runs (locked) before each UpdateStatus; a non-nil
	// error is returned instead of writing.
	beforeUpdate func(s *memQuotaStore, q *core.ResourceQuota) error
}

var _ QuotaStore = (*memQuotaStore)(nil)

func newQuotaStore(qs ...*core.ResourceQuota) *memQuotaStore {
	s := &memQuotaStore{quotas: map[string]*core.ResourceQuota{}}
	for _, q := range qs {
		s.put(q)
	}
	return s
}

// put stores q with a new resourceVersion; the caller holds mu or owns s.
func (s *memQuotaStore) put(q *core.ResourceQuota) *core.ResourceQuota {
	s.rv++
	c := meta.DeepCopy(q)
	c.ResourceVersion = fmt.Sprint(s.rv)
	s.quotas[q.Namespace+"/"+q.Name] = c
	return meta.DeepCopy(c)
}

func (s *memQuotaStore) List(_ context.Context, ns string) ([]*core.ResourceQuota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listErr != nil {
		return nil, s.listErr
	}
	var out []*core.ResourceQuota
	for _, q := range s.quotas {
		if q.Namespace == ns {
			out = append(out, meta.DeepCopy(q))
		}
	}
	return out, nil
}

func (s *memQuotaStore) UpdateStatus(_ context.Context, q *core.ResourceQuota) (*core.ResourceQuota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gr := meta.GroupResource{Resource: "resourcequotas"}
	if s.beforeUpdate != nil {
		if err := s.beforeUpdate(s, q); err != nil {
			return nil, err
		}
	}
	cur, ok := s.quotas[q.Namespace+"/"+q.Name]
	if !ok {
		return nil, apierrors.NewNotFound(gr, q.Name)
	}
	if cur.ResourceVersion != q.ResourceVersion {
		s.conflicts++
		return nil, apierrors.NewConflict(gr, q.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	next := meta.DeepCopy(cur)
	next.Status = q.Status
	s.updates++
	return s.put(next), nil
}

func (s *memQuotaStore) get(ns, name string) *core.ResourceQuota {
	s.mu.Lock()
	defer s.mu.Unlock()
	return meta.DeepCopy(s.quotas[ns+"/"+name])
}

func quota(name string, hard, used core.ResourceList) *core.ResourceQuota {
	return &core.ResourceQuota{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name},
		Spec: core.ResourceQuotaSpec{Hard: hard}, Status: core.ResourceQuotaStatus{Hard: hard, Used: used}}
}

func claim(class string, storage string) *core.PersistentVolumeClaim {
	pvc := &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "data"}}
	if class != "" {
		pvc.Spec.StorageClassName = &class
	}
	if storage != "" {
		pvc.Spec.Resources.Requests = rl("storage", storage)
	}
	return pvc
}

func TestResourceQuotaRefuses(t *testing.T) {
	burst := pod("ns", "web", container("web", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi")))
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "c"}}
	tests := []struct {
		name    string
		quota   *core.ResourceQuota
		a       *Attributes
		wantMsg string
	}{
		{"pods", quota("q", rl("pods", "10"), rl("pods", "10")), attrs(Create, "pods", "ns", "web", burst),
			`pods "web" is forbidden: exceeded quota: q, requested: pods=1, used: pods=10, limited: pods=10`},
		{"count/pods", quota("q", rl("count/pods", "2"), rl("count/pods", "2")), attrs(Create, "pods", "ns", "web", burst),
			`pods "web" is forbidden: exceeded quota: q, requested: count/pods=1, used: count/pods=2, limited: count/pods=2`},
		{"requests.cpu", quota("q", rl("requests.cpu", "1"), rl("requests.cpu", "800m")), attrs(Create, "pods", "ns", "web", burst),
			`pods "web" is forbidden: exceeded quota: q, requested: requests.cpu=500m, used: requests.cpu=800m, limited: requests.cpu=1`},
		{"cpu and pods at once", quota("compute", rl("pods", "2", "limits.cpu", "2", "memory", "8Gi"), rl("pods", "2", "limits.cpu", "1500m", "memory", "1Gi")),
			attrs(Create, "pods", "ns", "web", burst),
			`pods "web" is forbidden: exceeded quota: compute, requested: limits.cpu=1,pods=1, used: limits.cpu=1500m,pods=2, limited: limits.cpu=2,pods=2`},
		{"missing requests", quota("q", rl("requests.cpu", "4", "limits.memory", "4Gi"), nil),
			attrs(Create, "pods", "ns", "web", pod("ns", "web", container("b", nil, rl("memory", "1Gi")), container("a", nil, nil))),
			`pods "web" is forbidden: failed quota: q: must specify limits.memory for: a; requests.cpu for: a,b`},
		{"configmaps", quota("q", rl("configmaps", "2"), rl("configmaps", "2")), attrs(Create, "configmaps", "ns", "c", cm),
			`configmaps "c" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`},
		{"count of another group", quota("q", rl("count/deployments.apps", "0"), nil),
			&Attributes{Operation: Create, Resource: meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
				Namespace: "ns", Name: "d", Object: cm},
			`deployments.apps "d" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0`},
		{"claim storage", quota("q", rl("requests.storage", "10Gi"), rl("requests.storage", "8Gi")),
			attrs(Create, "persistentvolumeclaims", "ns", "data", claim("", "5Gi")),
			`persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: requests.storage=5Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi`},
		{"storage class claims", quota("q", rl("gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1"), rl("gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1")),
			attrs(Create, "persistentvolumeclaims", "ns", "data", claim("gold", "1Gi")),
			`persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1, used: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1, limited: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1`},
		{"node ports", quota("q", rl("services.nodeports", "1"), nil),
			attrs(Create, "services", "ns", "s", &core.Service{Spec: core.ServiceSpec{Type: core.ServiceTypeNodePort, Ports: make([]core.ServicePort, 2)}}),
			`services "s" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1`},
		{"best-effort scope", func() *core.ResourceQuota {
			q := quota("be", rl("pods", "0"), nil)
			q.Spec.Scopes = []core.ResourceQuotaScope{core.ResourceQuotaScopeBestEffort}
			return q
		}(), attrs(Create, "pods", "ns", "web", pod("ns", "web", container("web", nil, nil))),
			`pods "web" is forbidden: exceeded quota: be, requested: pods=1, used: pods=0, limited: pods=0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newQuotaStore(tt.quota)
			p := NewResourceQuota(store)
			err := p.Validate(context.Background(), tt.a)
			requireStatus(t, err, http.StatusForbidden, tt.wantMsg)
			assert.Equal(t, 0, store.updates, "a refusal writes nothing")
		})
	}
}

func TestResourceQuotaCharges(t *testing.T) {
	store := newQuotaStore(
		quota("compute", rl("pods", "10", "requests.cpu", "4", "limits.memory", "8Gi"), rl("pods", "3", "requests.cpu", "1")),
		quota("objects", rl("secrets", "5"), rl("secrets", "1")))
	best := quota("be", rl("pods", "1"), nil)
	best.Spec.Scopes = []core.ResourceQuotaScope{core.ResourceQuotaScopeBestEffort}
	store.put(best)
	p := NewResourceQuota(store)
	web := pod("ns", "web", container("web", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "2Gi")))
	require.NoError(t, p.Validate(context.Background(), attrs(Create, "pods", "ns", "web", web)))

	q := store.get("ns", "compute")
	assertRL(t, rl("pods", "4", "requests.cpu", "1500m", "limits.memory", "2Gi"), q.Status.Used)
	assertRL(t, q.Spec.Hard, q.Status.Hard)
	assertRL(t, rl("secrets", "1"), store.get("ns", "objects").Status.Used, "a quota that does not limit pods is untouched")
	assert.Empty(t, store.get("ns", "be").Status.Used, "a burstable pod is outside the BestEffort scope")
	assert.Equal(t, 1, store.updates)

	require.NoError(t, p.Release(context.Background(), attrs(Create, "pods", "ns", "web", web)))
	assertRL(t, rl("pods", "3", "requests.cpu", "1", "limits.memory", "0"), store.get("ns", "compute").Status.Used)
}

func TestResourceQuotaPassesWithoutWriting(t *testing.T) {
	web := pod("ns", "web", container("web", rl("cpu", "1"), rl("cpu", "1")))
	tests := []struct {
		name string
		a    *Attributes
	}{
		{"dry run", func() *Attributes { a := attrs(Create, "pods", "ns", "web", web); a.DryRun = true; return a }()},
		{"update", attrs(Update, "pods", "ns", "web", web)},
		{"subresource", func() *Attributes { a := attrs(Create, "pods", "ns", "web", web); a.Subresource = "binding"; return a }()},
		{"cluster scoped", attrs(Create, "nodes", "", "n", &core.Node{})},
		{"untracked kind", attrs(Create, "events", "ns", "e", &core.Event{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newQuotaStore(quota("q", rl("pods", "1", "requests.cpu", "2"), nil))
			require.NoError(t, NewResourceQuota(store).Validate(context.Background(), tt.a))
			assert.Equal(t, 0, store.updates)
		})
	}
}

// TestResourceQuotaChargesResize: an in-place resize (pods/resize) is
// charged what it adds, refused past the quota, and a shrink is free.
func TestResourceQuotaChargesResize(t *testing.T) {
	store := newQuotaStore(quota("compute", rl("pods", "10", "requests.cpu", "2", "limits.memory", "4Gi"),
		rl("pods", "2", "requests.cpu", "1500m", "limits.memory", "1Gi")))
	p := NewResourceQuota(store)
	old := pod("ns", "web", container("web", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi")))
	resize := func(cpu, mem string) *Attributes {
		n := pod("ns", "web", container("web", rl("cpu", cpu, "memory", "1Gi"), rl("cpu", "1", "memory", mem)))
		a := attrs(Update, "pods", "ns", "web", n)
		a.OldObject, a.Subresource = old, "resize"
		return a
	}
	require.NoError(t, p.Validate(context.Background(), resize("700m", "2Gi")))
	assertRL(t, rl("pods", "2", "requests.cpu", "1700m", "limits.memory", "2Gi"), store.get("ns", "compute").Status.Used,
		"charged the growth only")

	err := p.Validate(context.Background(), resize("1", "1Gi"))
	requireStatus(t, err, http.StatusForbidden,
		`pods "web" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=1700m, limited: requests.cpu=2`)

	updates := store.updates
	require.NoError(t, p.Validate(context.Background(), resize("100m", "512Mi")))
	assert.Equal(t, updates, store.updates, "a shrink charges nothing")

	plain := attrs(Update, "pods", "ns", "web", old)
	plain.OldObject = old
	require.NoError(t, p.Validate(context.Background(), plain))
	assert.Equal(t, updates, store.updates, "an ordinary update is not charged")
}

func TestResourceQuotaUnknownUsage(t *testing.T) {
	store := newQuotaStore(quota("q", rl("pods", "10", "configmaps", "3"), nil))
	p := NewResourceQuota(store, WithUnknownUsageRefused())
	err := p.Validate(context.Background(), attrs(Create, "pods", "ns", "web", pod("ns", "web", container("web", nil, nil))))
	requireStatus(t, err, http.StatusForbidden, `pods "web" is forbidden: status unknown for quota: q, resources: pods`)

	require.NoError(t, NewResourceQuota(store).Validate(context.Background(),
		attrs(Create, "pods", "ns", "web", pod("ns", "web", container("web", nil, nil)))), "missing usage counts as zero by default")
	assertRL(t, rl("pods", "1", "configmaps", "0"), store.get("ns", "q").Status.Used)
}

// TestResourceQuotaExactUnderConcurrency admits 50 pods at once against
// pods: 10 and expects exactly 10 to pass.
func TestResourceQuotaExactUnderConcurrency(t *testing.T) {
	store := newQuotaStore(quota("q", rl("pods", "10"), nil))
	p := NewResourceQuota(store)
	var admitted, refused atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			name := fmt.Sprintf("p%d", i)
			err := p.Validate(context.Background(), attrs(Create, "pods", "ns", name, pod("ns", name, container("c", nil, nil))))
			switch {
			case err == nil:
				admitted.Add(1)
			case apierrors.IsForbidden(err):
				refused.Add(1)
			default:
				t.Errorf("pod %s: unexpected error %v", name, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	assert.EqualValues(t, 10, admitted.Load())
	assert.EqualValues(t, 40, refused.Load())
	assertRL(t, rl("pods", "10"), store.get("ns", "q").Status.Used)
	assert.Equal(t, 10, store.updates)
	t.Logf("conflicts retried: %d", store.conflicts)
}

// TestResourceQuotaGivesBackOnLaterRefusal charges quota a, then finds b
// full after a conflict, and expects a's charge to be given back.
func TestResourceQuotaGivesBackOnLaterRefusal(t *testing.T) {
	store := newQuotaStore(quota("a", rl("pods", "10"), rl("pods", "1")), quota("b", rl("count/pods", "5"), rl("count/pods", "4")))
	store.beforeUpdate = func(s *memQuotaStore, q *core.ResourceQuota) error {
		if q.Name == "b" {
			s.beforeUpdate = nil
			cur := s.quotas["ns/b"]
			cur.Status.Used = rl("count/pods", "5") // another admission took the last unit
			s.put(cur)
			return apierrors.NewConflict(meta.GroupResource{Resource: "resourcequotas"}, "b", errors.New("modified"))
		}
		return nil
	}
	p := NewResourceQuota(store)
	err := p.Validate(context.Background(), attrs(Create, "pods", "ns", "web", pod("ns", "web", container("c", nil, nil))))
	requireStatus(t, err, http.StatusForbidden,
		`pods "web" is forbidden: exceeded quota: b, requested: count/pods=1, used: count/pods=5, limited: count/pods=5`)
	assertRL(t, rl("pods", "1"), store.get("ns", "a").Status.Used, "the charge to a was given back")
	assert.Equal(t, 2, store.updates, "a charged then released")
}

func TestResourceQuotaContention(t *testing.T) {
	store := newQuotaStore(quota("q", rl("pods", "10"), nil))
	store.beforeUpdate = func(*memQuotaStore, *core.ResourceQuota) error {
		return apierrors.NewConflict(meta.GroupResource{Resource: "resourcequotas"}, "q", errors.New("modified"))
	}
	p := NewResourceQuota(store, WithQuotaRetries(3))
	err := p.Validate(context.Background(), attrs(Create, "pods", "ns", "web", pod("ns", "web", container("c", nil, nil))))
	require.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Contains(t, err.Error(), ErrQuotaContention.Error())
	assert.Contains(t, err.Error(), "after 3 attempts")
}

func TestResourceQuotaStoreErrors(t *testing.T) {
	store := newQuotaStore(quota("q", rl("pods", "10"), nil))
	store.listErr = errors.New("store down")
	p := NewResourceQuota(store)
	a := attrs(Create, "pods", "ns", "web", pod("ns", "web", container("c", nil, nil)))
	requireStatus(t, p.Validate(context.Background(), a), http.StatusInternalServerError,
		`Internal error occurred: list resource quotas of namespace "ns": store down`)

	store.listErr = nil
	store.beforeUpdate = func(*memQuotaStore, *core.ResourceQuota) error { return errors.New("disk full") }
	requireStatus(t, p.Validate(context.Background(), a), http.StatusInternalServerError,
		`Internal error occurred: charge resource quota "q": disk full`)
}

func TestObjectUsage(t *testing.T) {
	lb := &core.Service{Spec: core.ServiceSpec{Type: core.ServiceTypeLoadBalancer, Ports: make([]core.ServicePort, 3)}}
	init := pod("ns", "p", container("a", rl("cpu", "1", "example.com/gpu", "1", "hugepages-2Mi", "4Mi"), rl("cpu", "2")))
	init.Spec.InitContainers = []core.Container{container("i", rl("cpu", "3"), rl("cpu", "3"))}
	pvc := claim("gold", "5Gi")
	tests := []struct {
		name string
		gr   meta.GroupResource
		obj  meta.Object
		want core.ResourceList
	}{
		{"pod", podsResource, init, rl("pods", "1", "count/pods", "1", "cpu", "3", "requests.cpu", "3", "limits.cpu", "3",
			"requests.example.com/gpu", "1", "hugepages-2Mi", "4Mi", "requests.hugepages-2Mi", "4Mi")},
		{"claim", pvcsResource, pvc, rl("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1",
			"requests.storage", "5Gi", "gold.storageclass.storage.k8s.io/requests.storage", "5Gi",
			"gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1")},
		{"load balancer", meta.GroupResource{Resource: "services"}, lb, rl("services", "1", "count/services", "1",
			"services.loadbalancers", "1", "services.nodeports", "3")},
		{"secret", meta.GroupResource{Resource: "secrets"}, &core.Secret{}, rl("secrets", "1", "count/secrets", "1")},
		{"other group", meta.GroupResource{Group: "apps", Resource: "deployments"}, &core.ConfigMap{}, rl("count/deployments.apps", "1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRL(t, tt.want, ObjectUsage(tt.gr, tt.obj))
		})
	}
}

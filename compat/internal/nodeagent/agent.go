package nodeagent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

// leaseNamespace is where node Leases live, as in Kubernetes.
const leaseNamespace = "kube-node-lease"

// Config tunes an Agent; zero values are documented.
type Config struct {
	// Capacity of every Node (also its allocatable); nil means 32 CPUs,
	// 256Gi memory, 110 pods.
	Capacity corev1.ResourceList
	// Labels put on every Node besides kubernetes.io/hostname.
	Labels map[string]string
	// LeaseInterval is how often each Node's Lease is renewed; 0 means
	// 10 s (the kubelet's default). The Lease lasts four intervals.
	LeaseInterval time.Duration
	// Workers update pod statuses, and renew Leases, at once; 0 means 16.
	Workers int
}

// Agent is a set of fake Nodes and the loops that keep them alive. Make
// one with New, Register Nodes, then Run it until its ctx ends. Register
// and Run may be called concurrently; an Agent is run at most once.
type Agent struct {
	cs  kubernetes.Interface
	cfg Config

	mu     sync.Mutex
	nodes  map[string]*coordinationv1.Lease // node name → last written Lease
	order  []string
	status atomic.Int64 // pod status updates made
	renews atomic.Int64 // lease renewals made
}

// New returns an Agent writing through cs.
func New(cs kubernetes.Interface, cfg Config) *Agent {
	if cfg.Capacity == nil {
		cfg.Capacity = corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods: resource.MustParse("110"),
		}
	}
	if cfg.LeaseInterval == 0 {
		cfg.LeaseInterval = 10 * time.Second
	}
	if cfg.Workers == 0 {
		cfg.Workers = 16
	}
	return &Agent{cs: cs, cfg: cfg, nodes: map[string]*coordinationv1.Lease{}}
}

// PodsStarted is how many pods the agent has marked Running.
func (a *Agent) PodsStarted() int64 { return a.status.Load() }

// LeaseRenewals is how many Lease renewals the agent has written.
func (a *Agent) LeaseRenewals() int64 { return a.renews.Load() }

// Register creates the Node name with its status and its Lease. An
// existing Node is an error wrapping the API's AlreadyExists.
func (a *Agent) Register(ctx context.Context, name string) error {
	now := metav1.Now()
	labels := map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "type": "kwok"}
	for k, v := range a.cfg.Labels {
		labels[k] = v
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{
			Capacity: a.cfg.Capacity, Allocatable: a.cfg.Capacity,
			Phase: corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "fake node agent", LastHeartbeatTime: now, LastTransitionTime: now}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: name}},
			NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.37.0-fake", OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
	created, err := a.cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("register node %s: %w", name, err)
	}
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: leaseNamespace, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "Node", Name: name, UID: created.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name),
			LeaseDurationSeconds: ptr.To(int32(4 * a.cfg.LeaseInterval / time.Second)), RenewTime: &metav1.MicroTime{Time: time.Now()}},
	}
	if *lease.Spec.LeaseDurationSeconds < 1 {
		lease.Spec.LeaseDurationSeconds = ptr.To[int32](1)
	}
	l, err := a.cs.CoordinationV1().Leases(leaseNamespace).Create(ctx, lease, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("lease of node %s: %w", name, err)
	}
	a.mu.Lock()
	a.nodes[name] = l
	a.order = append(a.order, name)
	a.mu.Unlock()
	return nil
}

// owns says name is one of the agent's Nodes.
func (a *Agent) owns(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.nodes[name]
	return ok
}

// Run renews the Leases and starts the pods bound to the agent's Nodes
// until ctx ends; it returns nil then, having stopped every goroutine it
// started.
func (a *Agent) Run(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(a.cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "spec.nodeName!="
	}))
	pods := factory.Core().V1().Pods().Informer()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	var wg sync.WaitGroup
	defer func() {
		queue.ShutDown()
		factory.Shutdown()
		wg.Wait()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), pods.HasSynced) {
		return nil
	}
	for range a.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a.work(ctx, queue, pods.GetIndexer()) {
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.heartbeat(ctx)
	}()
	<-ctx.Done()
	return nil
}

// work handles one queued pod; false when the queue is shut down.
func (a *Agent) work(ctx context.Context, q workqueue.TypedRateLimitingInterface[string], idx cache.Indexer) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	obj, exists, err := idx.GetByKey(key)
	if err != nil || !exists {
		q.Forget(key)
		return true
	}
	if err := a.syncPod(ctx, obj.(*corev1.Pod)); err != nil && ctx.Err() == nil {
		q.AddRateLimited(key)
		return true
	}
	q.Forget(key)
	return true
}

// syncPod marks a pod bound to one of the agent's Nodes Running, or
// finishes its graceful deletion.
func (a *Agent) syncPod(ctx context.Context, pod *corev1.Pod) error {
	if !a.owns(pod.Spec.NodeName) {
		return nil
	}
	if pod.DeletionTimestamp != nil {
		err := a.cs.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0),
			Preconditions: &metav1.Preconditions{UID: &pod.UID}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	if pod.Status.Phase == corev1.PodRunning {
		return nil
	}
	now := metav1.Now()
	st := corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "10.0.0.1", PodIP: "10.1.0.1", StartTime: &now,
		PodIPs: []corev1.PodIP{{IP: "10.1.0.1"}}, HostIPs: []corev1.HostIP{{IP: "10.0.0.1"}},
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		},
	}
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true,
			Started: ptr.To(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
	}
	next := pod.DeepCopy()
	next.Status = st
	_, err := a.cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		a.status.Add(1)
	}
	return err
}

// heartbeat renews every Node's Lease once per LeaseInterval, spread
// over the interval in twenty slices.
func (a *Agent) heartbeat(ctx context.Context) {
	const slices = 20
	t := time.NewTicker(a.cfg.LeaseInterval / slices)
	defer t.Stop()
	for tick := 0; ; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a.mu.Lock()
		var names []string
		for i := tick % slices; i < len(a.order); i += slices {
			names = append(names, a.order[i])
		}
		a.mu.Unlock()
		a.renewAll(ctx, names)
		if ctx.Err() != nil {
			return
		}
	}
}

// renewAll renews the Leases of names from up to Workers goroutines at
// once (one slow answer does not hold the others back) and returns when
// all are done; failures are retried at the next visit.
func (a *Agent) renewAll(ctx context.Context, names []string) {
	next := make(chan string)
	var wg sync.WaitGroup
	for range min(a.cfg.Workers, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range next {
				_ = a.renew(ctx, name)
			}
		}()
	}
	for _, name := range names {
		next <- name
	}
	close(next)
	wg.Wait()
}

// renew writes name's Lease with a new renewTime, from the last Lease the
// agent wrote (a conflict refetches it, as the kubelet does).
func (a *Agent) renew(ctx context.Context, name string) error {
	a.mu.Lock()
	cur := a.nodes[name]
	a.mu.Unlock()
	next := cur.DeepCopy()
	next.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	leases := a.cs.CoordinationV1().Leases(leaseNamespace)
	l, err := leases.Update(ctx, next, metav1.UpdateOptions{})
	switch {
	case apierrors.IsConflict(err):
		// Someone else wrote it: start from theirs next time.
		if l, err = leases.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		a.renews.Add(1)
	}
	a.mu.Lock()
	a.nodes[name] = l
	a.mu.Unlock()
	return nil
}

// Lease returns the last Lease the agent wrote for node.
func (a *Agent) Lease(node string) (*coordinationv1.Lease, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.nodes[node]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoNodes, node)
	}
	return l.DeepCopy(), nil
}

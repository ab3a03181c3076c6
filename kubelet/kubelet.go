package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/informer"
)

// Kubelet is the agent of one node. Make it with New and start it with Run;
// it is safe for concurrent use. Its pod handlers (OnAdd, OnUpdate,
// OnDelete) accept pods from a shared informer when Config.ExternalPods is
// set.
type Kubelet struct {
	cfg     Config
	pods    *client.Resource[core.Pod, *core.Pod]
	status  *statusManager
	cgroups *cgroupManager
	cpus    *cpuManager
	ips     *ipAllocator
	prober  Prober
	rec     record.Recorder
	events  *record.Writer // the kubelet's own recorder, or nil
	// minOOMScoreAdj bounds the containers' OOM score adjustments;
	// memCapacity, the node's memory, scales the Burstable ones.
	minOOMScoreAdj int64
	memCapacity    int64

	mu        sync.Mutex
	workers   map[meta.UID]*podWorker
	sandboxes map[string]meta.UID // sandbox ID -> pod UID, for runtime events
	running   bool
	ctx       context.Context
	wg        sync.WaitGroup
	synced    chan struct{} // closed when the pod source has synced
	finished  map[meta.UID]time.Time

	logServerPort atomic.Int32
	services      atomic.Pointer[informerServices] // set by runServiceInformer

	node nodeState
	// tokens are the service-account tokens of projected volumes.
	tokens *tokenManager
	// podCerts are the credentials of podCertificate projected sources.
	podCerts *podCertManager
	// started is when New made the kubelet (the node's start time in
	// Summary); meter integrates a simulated node's usage rates.
	started time.Time
	meter   usageMeter
}

var _ informer.Handler[*core.Pod] = (*Kubelet)(nil)

// New returns a stopped Kubelet for cfg. It checks the configuration only;
// nothing is contacted until Run.
func New(cfg Config) (*Kubelet, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	k := &Kubelet{
		cfg:       cfg,
		started:   time.Now().Truncate(time.Second),
		pods:      client.For[core.Pod](cfg.Client, ""),
		workers:   map[meta.UID]*podWorker{},
		sandboxes: map[string]meta.UID{},
		ips:       newIPAllocator(cfg.FakePodCIDR),
		synced:    make(chan struct{}),
		tokens:    newTokenManager(cfg.Client, nil),
		podCerts:  newPodCertManager(cfg.Client, cfg.NodeName),
	}
	if k.rec, k.events, err = newRecorder(cfg); err != nil {
		return nil, err
	}
	k.status = newStatusManager(cfg.Client, cfg.Logger)
	if cfg.CgroupRoot != "" {
		k.cgroups = newCgroupManager(cfg.CgroupRoot)
	}
	if cfg.CPUManagerPolicy == "static" {
		k.cpus = newCPUManager(hostCPUs(cfg.Capacity), cfg.ReservedCPUs)
	}
	k.minOOMScoreAdj = -1000
	if q, ok := cfg.Capacity[core.ResourceMemory]; ok {
		k.memCapacity = q.Value()
	} else {
		k.memCapacity = hostMemory()
	}
	if cfg.CgroupRoot != "" { // a real node
		k.minOOMScoreAdj = minOOMScoreAdj()
	}
	k.prober = cfg.Prober
	if k.prober == nil {
		if cfg.Network == nil {
			k.prober = alwaysProber{}
		} else {
			k.prober = netProber{}
		}
	}
	return k, nil
}

// NodeName returns the node's name.
func (k *Kubelet) NodeName() string { return k.cfg.NodeName }

// Run registers the node, adopts what the runtime already runs, starts the
// pod source, heartbeat, status manager and log server, and blocks until
// ctx ends. Containers keep running after Run returns. Run returns ctx's
// error, or an error if the node cannot be registered.
func (k *Kubelet) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var srv *http.Server
	defer func() {
		cancel()
		if srv != nil {
			shut, done := context.WithTimeout(context.Background(), 2*time.Second)
			_ = srv.Shutdown(shut)
			done()
		}
		k.wg.Wait()
		k.mu.Lock()
		k.running = false
		k.mu.Unlock()
	}()
	// The log endpoint listens first, so the node registers its port.
	if k.cfg.ServerAddr != "" {
		var err error
		if srv, err = k.startLogServer(ctx); err != nil {
			return err
		}
	}
	if err := k.registerWithRetry(ctx); err != nil {
		return err
	}
	k.mu.Lock()
	k.running, k.ctx = true, ctx
	for _, w := range k.workers {
		k.startWorker(w)
	}
	k.mu.Unlock()
	k.goRun(func() { k.status.run(ctx) })
	if k.events != nil {
		k.goRun(func() { _ = k.events.Run(ctx) })
	}
	k.goRun(func() { k.followEvents(ctx) })
	if !k.cfg.ExternalHeartbeat {
		k.runNodeInformer(ctx)
		k.goRun(func() { k.heartbeatLoop(ctx) })
	}
	if !k.cfg.ExternalPods {
		if k.cfg.Services == nil {
			if err := k.runServiceInformer(ctx); err != nil {
				return err
			}
		}
		if err := k.runPodInformer(ctx); err != nil {
			return err
		}
	}
	k.goRun(func() { k.housekeeping(ctx) })
	<-ctx.Done()
	return ctx.Err()
}

// registerWithRetry registers the node, retrying with back-off (1 s
// doubling to 30 s) while the API server cannot be reached; it gives up
// only when ctx ends, or at once on an error no retry can fix (forbidden,
// invalid).
func (k *Kubelet) registerWithRetry(ctx context.Context) error {
	delay := time.Second
	for {
		err := k.registerNode(ctx)
		if err == nil {
			return nil
		}
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsUnauthorized(err) {
			return err
		}
		k.cfg.Logger.Warn("register node, retrying", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("register node %q: %w (last error: %w)", k.cfg.NodeName, ctx.Err(), err)
		case <-t.C:
		}
		delay = min(delay*2, 30*time.Second)
	}
}

func (k *Kubelet) goRun(f func()) {
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		f()
	}()
}

// runPodInformer starts the Kubelet's own informer on the pods bound to
// its node and waits for its first list.
func (k *Kubelet) runPodInformer(ctx context.Context) error {
	lw := informer.NewListerWatcher(k.pods, "", "spec.nodeName="+k.cfg.NodeName)
	inf := informer.New[*core.Pod](lw, informer.Config[*core.Pod]{Name: "pods", Logger: k.cfg.Logger})
	reg := inf.AddEventHandler(k)
	k.goRun(func() { _ = inf.Run(ctx) })
	if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
		return ctx.Err()
	}
	k.MarkSynced()
	return nil
}

// MarkSynced tells the Kubelet that every existing pod of its node has been
// handed to it, so that runtime objects no pod owns may be removed. Its own
// informer calls it; a shared source calls it after its first list.
func (k *Kubelet) MarkSynced() {
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case <-k.synced:
	default:
		close(k.synced)
	}
}

// OnAdd hands the Kubelet a pod bound to its node. Only pods of the
// initial list can have runtime objects from an earlier kubelet; a pod
// added later is new, so its first sync skips adoption.
func (k *Kubelet) OnAdd(pod *core.Pod, isInitialList bool) { k.updatePod(pod, false, isInitialList) }

// OnUpdate hands the Kubelet a changed pod.
func (k *Kubelet) OnUpdate(_, pod *core.Pod) { k.updatePod(pod, false, true) }

// OnDelete tells the Kubelet a pod is gone from the API server.
func (k *Kubelet) OnDelete(obj any) {
	if pod, ok := informer.ObjectOf[*core.Pod](obj); ok && pod != nil {
		k.updatePod(pod, true, true)
	}
}

// updatePod routes a pod to its worker, starting one if needed.
func (k *Kubelet) updatePod(pod *core.Pod, removed, mayExist bool) {
	if pod.Spec.NodeName != k.cfg.NodeName {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	w := k.workers[pod.UID]
	if w == nil {
		if _, done := k.finished[pod.UID]; done || removed && !k.running {
			return
		}
		w = newPodWorker(k, pod)
		w.state.adopted = !mayExist
		k.workers[pod.UID] = w
		if k.running {
			k.startWorker(w)
		}
	}
	w.update(pod, removed)
}

// startWorker runs w under the Kubelet's context; k.mu is held.
func (k *Kubelet) startWorker(w *podWorker) {
	ctx := k.ctx
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		w.run(ctx)
		k.mu.Lock()
		if k.workers[w.uid] == w && w.finished() {
			delete(k.workers, w.uid)
		}
		k.mu.Unlock()
	}()
}

// kickSandbox wakes the worker of the pod that owns sandbox id.
func (k *Kubelet) kickSandbox(id string) {
	k.mu.Lock()
	uid, ok := k.sandboxes[id]
	var w *podWorker
	if ok {
		w = k.workers[uid]
	}
	k.mu.Unlock()
	if w != nil {
		w.kick()
	}
}

func (k *Kubelet) setSandbox(id string, uid meta.UID) {
	k.mu.Lock()
	if uid == "" {
		delete(k.sandboxes, id)
	} else {
		k.sandboxes[id] = uid
	}
	k.mu.Unlock()
}

// followEvents syncs a pod as soon as the runtime reports a change of one
// of its containers. It resubscribes if the runtime ends the stream.
func (k *Kubelet) followEvents(ctx context.Context) {
	for ctx.Err() == nil {
		ch := k.cfg.Runtime.Events(ctx)
		for ev := range ch {
			k.kickSandbox(ev.PodSandboxID)
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

// activePods returns the pods the Kubelet runs and has admitted, except
// skip; used by admission to sum requests.
func (k *Kubelet) activePods(skip meta.UID) []*core.Pod {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]*core.Pod, 0, len(k.workers))
	for uid, w := range k.workers {
		if uid == skip {
			continue
		}
		if p := w.admittedPod(); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// housekeeping removes, once the pod source has synced and periodically
// afterwards, sandboxes and containers whose pod the Kubelet does not know.
func (k *Kubelet) housekeeping(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-k.synced:
	}
	t := time.NewTicker(k.cfg.ResyncInterval)
	defer t.Stop()
	for {
		if err := k.cleanupOrphans(ctx); err != nil && ctx.Err() == nil {
			k.cfg.Logger.Warn("clean up orphans", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// cleanupOrphans removes runtime sandboxes (with their containers and
// networks) and pod directories that belong to no known pod.
func (k *Kubelet) cleanupOrphans(ctx context.Context) error {
	sbs, err := k.cfg.Runtime.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	if err != nil {
		return fmt.Errorf("list sandboxes: %w", err)
	}
	var errs []error
	for _, sb := range sbs {
		uid := meta.UID(sb.Labels[labelPodUID])
		if uid == "" {
			continue // not ours
		}
		k.mu.Lock()
		_, known := k.workers[uid]
		k.mu.Unlock()
		if known {
			continue
		}
		k.cfg.Logger.Info("removing orphaned sandbox", "sandbox", sb.ID, "pod", sb.Metadata.Namespace+"/"+sb.Metadata.Name)
		ps := &podState{sandboxID: sb.ID}
		ref := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: sb.Metadata.Name, Namespace: sb.Metadata.Namespace, UID: uid}}
		if err := k.teardownPod(ctx, ref, ps, 0); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, k.cleanupOrphanDirs())
	return errors.Join(errs...)
}

// listenTCP is net.Listen, split out so the log server test seam is one place.
func listenTCP(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

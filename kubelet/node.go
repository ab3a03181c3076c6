package kubelet

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// Well-known node labels.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelOS       = "kubernetes.io/os"
	LabelArch     = "kubernetes.io/arch"
)

// nodeState is what the heartbeat remembers between beats.
type nodeState struct {
	mu         sync.Mutex
	lastStatus core.NodeStatus
	lastReport time.Time
	lastLease  time.Time
	lease      *coordination.Lease
	// server is the status the API server last showed for the Node (nil
	// until ObserveNode is first called): another writer, such as the
	// node lifecycle controller marking Ready Unknown after a missed
	// heartbeat, shows up here.
	server *core.NodeStatus
	// runtimeVersion is the runtime's last reported version, kept while
	// the runtime does not answer.
	runtimeVersion string
}

// runtimeProbeTimeout bounds each runtime call of a heartbeat, so a dead
// runtime makes the node NotReady instead of stopping its heartbeats
// (which would make the node controller mark it Unknown).
const runtimeProbeTimeout = 5 * time.Second

// registerNode creates the Node, or updates the existing one's status (a
// restart), and writes the first Lease.
func (k *Kubelet) registerNode(ctx context.Context) error {
	nodes := client.For[core.Node](k.cfg.Client, "")
	st := k.computeNodeStatus(ctx)
	node := &core.Node{
		ObjectMeta: meta.ObjectMeta{Name: k.cfg.NodeName, Labels: k.nodeLabels()},
		Spec:       core.NodeSpec{PodCIDR: k.cfg.PodCIDR, Taints: k.cfg.Taints},
		Status:     st,
	}
	if k.cfg.PodCIDR != "" {
		node.Spec.PodCIDRs = []string{k.cfg.PodCIDR}
	}
	created, err := nodes.Create(ctx, node)
	switch {
	case err == nil:
		// The create may drop the status; write it through nodes/status.
		created.Status = st
		if _, err := nodes.UpdateStatus(ctx, created); err != nil {
			return fmt.Errorf("register node %q: status: %w", k.cfg.NodeName, err)
		}
	case apierrors.IsAlreadyExists(err):
		if err := k.writeNodeStatus(ctx, st); err != nil {
			return fmt.Errorf("register node %q: %w", k.cfg.NodeName, err)
		}
	default:
		return fmt.Errorf("register node %q: %w", k.cfg.NodeName, err)
	}
	k.node.mu.Lock()
	k.node.lastStatus, k.node.lastReport = st, time.Now()
	k.node.mu.Unlock()
	return k.renewLease(ctx)
}

func (k *Kubelet) nodeLabels() map[string]string {
	l := map[string]string{LabelHostname: k.cfg.NodeName, LabelOS: runtime.GOOS, LabelArch: runtime.GOARCH}
	for key, v := range k.cfg.Labels {
		l[key] = v
	}
	return l
}

// heartbeatLoop renews the Lease and reports the node status until ctx ends.
func (k *Kubelet) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(min(k.cfg.LeaseRenewInterval, k.cfg.NodeStatusInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			k.Heartbeat(ctx)
		}
	}
}

// Heartbeat renews the Lease and writes the node status when either is due.
// The Kubelet's own loop calls it; with Config.ExternalHeartbeat the caller
// does. Errors are logged and retried at the next beat.
func (k *Kubelet) Heartbeat(ctx context.Context) {
	now := time.Now()
	k.node.mu.Lock()
	leaseDue := now.Sub(k.node.lastLease) >= k.cfg.LeaseRenewInterval-k.cfg.LeaseRenewInterval/10
	k.node.mu.Unlock()
	if leaseDue {
		if err := k.renewLease(ctx); err != nil && ctx.Err() == nil {
			k.cfg.Logger.Warn("renew lease", "err", err)
		}
	}
	if err := k.syncNodeStatus(ctx, false); err != nil && ctx.Err() == nil {
		k.cfg.Logger.Warn("update node status", "err", err)
	}
}

// renewLease creates or renews the node's Lease in kube-node-lease.
func (k *Kubelet) renewLease(ctx context.Context) error {
	leases := client.For[coordination.Lease](k.cfg.Client, coordination.NodeLeaseNamespace)
	now := meta.NowMicro()
	dur := int32(k.cfg.LeaseDuration / time.Second)
	k.node.mu.Lock()
	cached := k.node.lease
	k.node.mu.Unlock()
	var out *coordination.Lease
	var err error
	if cached != nil {
		l := *cached
		l.Spec.RenewTime, l.Spec.LeaseDurationSeconds = &now, &dur
		out, err = leases.Update(ctx, &l)
	}
	if cached == nil || apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		out, err = leases.Get(ctx, k.cfg.NodeName)
		switch {
		case apierrors.IsNotFound(err):
			holder := k.cfg.NodeName
			l := &coordination.Lease{ObjectMeta: meta.ObjectMeta{Name: k.cfg.NodeName, Namespace: coordination.NodeLeaseNamespace},
				Spec: coordination.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &now}}
			out, err = leases.Create(ctx, l)
		case err == nil:
			out.Spec.RenewTime, out.Spec.LeaseDurationSeconds = &now, &dur
			out, err = leases.Update(ctx, out)
		}
	}
	if err != nil {
		return fmt.Errorf("lease %s/%s: %w", coordination.NodeLeaseNamespace, k.cfg.NodeName, err)
	}
	k.node.mu.Lock()
	k.node.lease, k.node.lastLease = out, time.Now()
	k.node.mu.Unlock()
	return nil
}

// syncNodeStatus computes the node status and writes it when it changed
// (ignoring heartbeat times) or the report period passed.
func (k *Kubelet) syncNodeStatus(ctx context.Context, force bool) error {
	st := k.computeNodeStatus(ctx)
	k.node.mu.Lock()
	due := force || time.Since(k.node.lastReport) >= k.cfg.NodeStatusReportPeriod ||
		!sameNodeStatus(k.node.lastStatus, st) ||
		(k.node.server != nil && !sameConditions(*k.node.server, st))
	k.node.mu.Unlock()
	if !due {
		return nil
	}
	if err := k.writeNodeStatus(ctx, st); err != nil {
		return err
	}
	k.node.mu.Lock()
	k.node.lastStatus, k.node.lastReport = st, time.Now()
	k.node.mu.Unlock()
	return nil
}

// writeNodeStatus writes st through nodes/status, keeping transition times
// of unchanged conditions; conflicts are retried.
func (k *Kubelet) writeNodeStatus(ctx context.Context, st core.NodeStatus) error {
	nodes := client.For[core.Node](k.cfg.Client, "")
	for attempt := 0; ; attempt++ {
		n, err := nodes.Get(ctx, k.cfg.NodeName)
		if err != nil {
			return fmt.Errorf("get node: %w", err)
		}
		for i := range st.Conditions {
			if _, old := core.GetNodeCondition(&n.Status, st.Conditions[i].Type); old != nil && old.Status == st.Conditions[i].Status {
				st.Conditions[i].LastTransitionTime = old.LastTransitionTime
			}
		}
		n.Status = st
		_, err = nodes.UpdateStatus(ctx, n)
		if err == nil || !apierrors.IsConflict(err) || attempt >= 5 {
			if err != nil {
				return fmt.Errorf("update node status: %w", err)
			}
			return nil
		}
	}
}

// ObserveNode tells the Kubelet what the API server holds for its Node.
// When the server's conditions differ from the ones the Kubelet computes
// (the node lifecycle controller set Ready to Unknown while a heartbeat
// was late), the next heartbeat writes the status at once instead of at
// the end of NodeStatusReportPeriod, as the kubelet compares against the
// server's copy. The Kubelet's own node informer calls it; with
// Config.ExternalHeartbeat the caller does. n is not modified.
func (k *Kubelet) ObserveNode(n *core.Node) {
	if n == nil || n.Name != k.cfg.NodeName {
		return
	}
	st := n.Status
	k.node.mu.Lock()
	k.node.server = &st
	k.node.mu.Unlock()
}

// sameConditions reports whether server shows every condition of want
// with want's status. Only conditions are compared with the server's
// copy: the rest of a status read back (quantities, addresses) may be
// spelled differently from what was written without meaning a change.
func sameConditions(server, want core.NodeStatus) bool {
	for _, c := range want.Conditions {
		if _, got := core.GetNodeCondition(&server, c.Type); got == nil || got.Status != c.Status {
			return false
		}
	}
	return true
}

// runNodeInformer watches the Kubelet's own Node (metadata.name) and
// hands each version to ObserveNode.
func (k *Kubelet) runNodeInformer(ctx context.Context) {
	lw := informer.NewListerWatcher(client.For[core.Node](k.cfg.Client, ""), "", "metadata.name="+k.cfg.NodeName)
	inf := informer.New[*core.Node](lw, informer.Config[*core.Node]{Name: "node", Logger: k.cfg.Logger})
	inf.AddEventHandler(informer.HandlerFuncs[*core.Node]{
		AddFunc:    func(n *core.Node, _ bool) { k.ObserveNode(n) },
		UpdateFunc: func(_, n *core.Node) { k.ObserveNode(n) },
	})
	k.goRun(func() { _ = inf.Run(ctx) })
}

func sameNodeStatus(a, b core.NodeStatus) bool {
	strip := func(s core.NodeStatus) core.NodeStatus {
		c := s
		c.Conditions = make([]core.NodeCondition, len(s.Conditions))
		for i, cond := range s.Conditions {
			cond.LastHeartbeatTime, cond.LastTransitionTime = meta.Time{}, meta.Time{}
			c.Conditions[i] = cond
		}
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// computeNodeStatus builds the node's status: capacity, allocatable,
// addresses, node info, daemon endpoint and conditions.
func (k *Kubelet) computeNodeStatus(ctx context.Context) core.NodeStatus {
	capacity := k.capacity()
	alloc := capacity.DeepCopy()
	for name, q := range k.cfg.Reserved {
		if v, ok := alloc[name]; ok {
			v.Sub(q)
			if v.Sign() < 0 {
				v.Set(0)
			}
			alloc[name] = v
		}
	}
	now := meta.Now()
	ready, reason, msg := k.readiness(ctx)
	cond := func(t core.NodeConditionType, ok bool, reason, msg string) core.NodeCondition {
		s := meta.ConditionFalse
		if ok {
			s = meta.ConditionTrue
		}
		return core.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	st := core.NodeStatus{
		Capacity: capacity, Allocatable: alloc, Phase: core.NodeRunning,
		Addresses: []core.NodeAddress{
			{Type: core.NodeInternalIP, Address: k.cfg.NodeIP.String()},
			{Type: core.NodeHostName, Address: k.cfg.NodeName},
		},
		DaemonEndpoints: core.NodeDaemonEndpoints{KubeletEndpoint: core.DaemonEndpoint{Port: k.serverPort()}},
		NodeInfo:        k.nodeInfo(ctx),
		Conditions: []core.NodeCondition{
			cond(core.NodeMemoryPressure, false, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(core.NodeDiskPressure, false, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(core.NodePIDPressure, false, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(core.NodeReady, ready, reason, msg),
		},
	}
	return st
}

// readiness derives the Ready condition from the runtime's and the
// network's health.
func (k *Kubelet) readiness(ctx context.Context) (bool, string, string) {
	ctx, cancel := context.WithTimeout(ctx, runtimeProbeTimeout)
	defer cancel()
	rs, err := k.cfg.Runtime.Status(ctx)
	if err != nil {
		return false, "KubeletNotReady", "container runtime is down: " + err.Error()
	}
	if c, ok := rs.Condition("RuntimeReady"); ok && !c.Status {
		return false, "KubeletNotReady", "container runtime not ready: " + c.Reason + " " + c.Message
	}
	if k.cfg.Network != nil {
		if err := k.cfg.Network.Status(ctx); err != nil {
			return false, "KubeletNotReady", "network not ready: " + err.Error()
		}
	}
	return true, "KubeletReady", "kubelet is posting ready status"
}

func (k *Kubelet) serverPort() int32 {
	if k.cfg.ServerAddr == "" {
		return 0
	}
	if p := k.logServerPort.Load(); p != 0 {
		return p
	}
	_, port, ok := strings.Cut(k.cfg.ServerAddr, ":")
	if !ok {
		return DefaultKubeletPort
	}
	var n int32
	fmt.Sscan(port, &n)
	return n
}

func (k *Kubelet) nodeInfo(ctx context.Context) core.NodeSystemInfo {
	info := core.NodeSystemInfo{KubeletVersion: Version, OperatingSystem: runtime.GOOS, Architecture: runtime.GOARCH,
		KernelVersion: kernelVersion(), OSImage: "orkit", MachineID: readTrim("/etc/machine-id"),
		BootID: readTrim("/proc/sys/kernel/random/boot_id")}
	ctx, cancel := context.WithTimeout(ctx, runtimeProbeTimeout)
	defer cancel()
	v, err := k.cfg.Runtime.Version(ctx)
	k.node.mu.Lock()
	defer k.node.mu.Unlock()
	if err == nil {
		k.node.runtimeVersion = v.RuntimeName + "://" + v.RuntimeVersion
	}
	info.ContainerRuntimeVersion = k.node.runtimeVersion
	return info
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func kernelVersion() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return ""
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// capacity is the configured capacity over the host's.
func (k *Kubelet) capacity() core.ResourceList {
	c := core.ResourceList{
		core.ResourceCPU:    *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI),
		core.ResourceMemory: *resource.NewQuantity(hostMemory(), resource.BinarySI),
		core.ResourcePods:   *resource.NewQuantity(DefaultMaxPods, resource.DecimalSI),
	}
	if k.cfg.RootDir != "" {
		var fs syscall.Statfs_t
		if syscall.Statfs(k.cfg.RootDir, &fs) == nil {
			c[core.ResourceEphemeralStorage] = *resource.NewQuantity(int64(fs.Blocks)*fs.Bsize, resource.BinarySI)
		}
	}
	for name, q := range k.cfg.Capacity {
		c[name] = q.DeepCopy()
	}
	return c
}

func hostMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

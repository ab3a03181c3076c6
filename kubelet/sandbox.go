package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/cri"
)

func (k *Kubelet) podsIn(ns string) *client.Resource[core.Pod, *core.Pod] {
	return client.For[core.Pod](k.cfg.Client, ns)
}

// rememberFinished notes a pod whose teardown is complete, so its final
// delete event starts no new worker.
func (k *Kubelet) rememberFinished(uid meta.UID) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.finished == nil {
		k.finished = map[meta.UID]time.Time{}
	}
	now := time.Now()
	k.finished[uid] = now
	for u, t := range k.finished {
		if now.Sub(t) > 10*time.Minute {
			delete(k.finished, u)
		}
	}
}

// adopt rebuilds the pod's state from what the runtime runs: the newest
// sandbox of the pod and the newest container of each name, so a
// restarted kubelet keeps them (same IDs, no restarts).
func (k *Kubelet) adopt(ctx context.Context, pod *core.Pod, ps *podState) error {
	sbs, err := k.cfg.Runtime.ListPodSandbox(ctx, cri.PodSandboxFilter{LabelSelector: map[string]string{labelPodUID: string(pod.UID)}})
	if err != nil {
		return fmt.Errorf("list sandboxes: %w", err)
	}
	ps.adopted = true
	if len(sbs) == 0 {
		return nil
	}
	sort.Slice(sbs, func(i, j int) bool { return sbs[i].Metadata.Attempt > sbs[j].Metadata.Attempt })
	sb := sbs[0]
	sst, err := k.cfg.Runtime.PodSandboxStatus(ctx, sb.ID)
	if err != nil {
		return fmt.Errorf("sandbox %s status: %w", sb.ID, err)
	}
	ps.sandboxID, ps.sandboxAttempt, ps.netnsPath = sb.ID, sb.Metadata.Attempt, sst.NetworkNamespacePath
	ps.sandboxCfg = k.sandboxConfig(pod, sb.Metadata.Attempt)
	if sst.Network.IP != "" {
		ps.podIPs = append([]string{sst.Network.IP}, sst.Network.AdditionalIPs...)
		ps.networkReady = true
		if k.cfg.Network == nil {
			if a, err := netip.ParseAddr(sst.Network.IP); err == nil {
				k.ips.reserve(a, pod.UID)
			}
		}
	}
	ps.admitted = true
	k.setSandbox(sb.ID, pod.UID)
	ctrs, err := k.cfg.Runtime.ListContainers(ctx, cri.ContainerFilter{PodSandboxID: sb.ID})
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	for _, c := range ctrs {
		name := c.Labels[labelContainerName]
		if name == "" {
			continue
		}
		cs := ps.ctr(name, c.Labels[labelContainerInit] == "true")
		if cs.id == "" || c.Metadata.Attempt > cs.attempt {
			cs.id, cs.attempt, cs.created = c.ID, c.Metadata.Attempt, true
			cs.started, cs.ready = true, false
		}
	}
	for _, cs := range ps.containers {
		if k.cpus == nil {
			break
		}
		if st, err := k.cfg.Runtime.ContainerStatus(ctx, cs.id); err == nil && st.Resources != nil && st.Resources.CpusetCpus != "" {
			cs.cpus = st.Resources.CpusetCpus
			k.cpus.adopt(cs.id, cs.cpus)
		}
	}
	if pod.Status.StartTime != nil {
		ps.startTime = pod.Status.StartTime
	}
	return nil
}

// sandboxConfig is the CRI sandbox configuration of pod.
func (k *Kubelet) sandboxConfig(pod *core.Pod, attempt uint32) cri.PodSandboxConfig {
	hostname := pod.Spec.Hostname
	if hostname == "" {
		hostname = pod.Name
	}
	if len(hostname) > 63 {
		hostname = hostname[:63]
	}
	cfg := cri.PodSandboxConfig{
		Metadata: cri.PodSandboxMetadata{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID), Attempt: attempt},
		Hostname: hostname,
		Labels: map[string]string{labelPodUID: string(pod.UID), labelPodName: pod.Name,
			labelPodNamespace: pod.Namespace},
		Annotations: map[string]string{},
	}
	if k.cfg.LogDir != "" {
		cfg.LogDirectory = k.podLogDir(pod)
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				cfg.PortMappings = append(cfg.PortMappings, cri.PortMapping{Protocol: cri.Protocol(orString(string(p.Protocol), "TCP")),
					ContainerPort: p.ContainerPort, HostPort: p.HostPort, HostIP: p.HostIP})
			}
		}
	}
	ns := cri.NamespaceOptions{Network: cri.NamespacePod, IPC: cri.NamespacePod, PID: cri.NamespaceContainer}
	if pod.Spec.HostNetwork {
		ns.Network = cri.NamespaceNode
	}
	if pod.Spec.HostIPC {
		ns.IPC = cri.NamespaceNode
	}
	if pod.Spec.HostPID {
		ns.PID = cri.NamespaceNode
	} else if pod.Spec.ShareProcessNamespace != nil && *pod.Spec.ShareProcessNamespace {
		ns.PID = cri.NamespacePod
	}
	cfg.Linux.Security.NamespaceOptions = ns
	if sc := pod.Spec.SecurityContext; sc != nil {
		cfg.Linux.Security.RunAsUser, cfg.Linux.Security.RunAsGroup = sc.RunAsUser, sc.RunAsGroup
		cfg.Linux.Security.SupplementalGroups = sc.SupplementalGroups
		if len(sc.Sysctls) > 0 {
			cfg.Linux.Sysctls = map[string]string{}
			for _, s := range sc.Sysctls {
				cfg.Linux.Sysctls[s.Name] = s.Value
			}
		}
	}
	if dns, err := k.podDNS(pod); err == nil {
		cfg.DNSConfig = dns
	}
	return cfg
}

func (k *Kubelet) podLogDir(pod *core.Pod) string {
	return filepath.Join(k.cfg.LogDir, pod.Namespace+"_"+pod.Name+"_"+string(pod.UID))
}

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// podDNS computes the pod's resolv.conf for the runtime.
func (k *Kubelet) podDNS(pod *core.Pod) (*cri.DNSConfig, error) {
	host, _ := readHostResolvConf()
	in := cni.PodDNSInput{Policy: cni.DNSPolicy(pod.Spec.DNSPolicy), HostNetwork: pod.Spec.HostNetwork,
		Namespace: pod.Namespace, ClusterDomain: k.cfg.ClusterDomain, ClusterDNS: k.cfg.ClusterDNS, Host: host}
	if d := pod.Spec.DNSConfig; d != nil {
		for _, s := range d.Nameservers {
			if a, err := netip.ParseAddr(s); err == nil {
				in.Pod.Nameservers = append(in.Pod.Nameservers, a)
			}
		}
		in.Pod.Searches = d.Searches
		for _, o := range d.Options {
			opt := o.Name
			if o.Value != nil {
				opt += ":" + *o.Value
			}
			in.Pod.Options = append(in.Pod.Options, opt)
		}
	}
	out, err := cni.PodDNS(in)
	if err != nil {
		return nil, err
	}
	c := &cri.DNSConfig{Searches: out.Searches, Options: out.Options}
	for _, a := range out.Nameservers {
		c.Servers = append(c.Servers, a.String())
	}
	return c, nil
}

// ensureSandbox creates the pod's sandbox when there is none ready. A dead
// sandbox is replaced: its containers are removed and every container
// starts again in the new one (attempt + 1).
func (k *Kubelet) ensureSandbox(ctx context.Context, pod *core.Pod, ps *podState) error {
	if ps.sandboxID != "" {
		st, err := k.cfg.Runtime.PodSandboxStatus(ctx, ps.sandboxID)
		if err == nil && st.State == cri.SandboxReady {
			return nil
		}
		if err != nil && !errors.Is(err, cri.ErrNotFound) {
			return fmt.Errorf("sandbox %s status: %w", ps.sandboxID, err)
		}
		k.cfg.Logger.Info("sandbox is dead, replacing it", "pod", podKey(pod), "sandbox", ps.sandboxID)
		k.podEvent(pod, core.EventTypeNormal, EventSandboxChanged, "Pod sandbox changed, it will be killed and re-created.")
		if err := k.killContainers(ctx, pod, ps, 0); err != nil {
			return err
		}
		old := ps.sandboxID
		if err := k.removeSandbox(ctx, pod, old); err != nil {
			return err
		}
		ps.sandboxID, ps.networkReady, ps.podIPs = "", false, nil
		ps.sandboxAttempt++
		for _, cs := range ps.containers {
			if cs.id != "" {
				cs.id, cs.attempt = "", cs.attempt+1
			}
		}
	}
	cfg := k.sandboxConfig(pod, ps.sandboxAttempt)
	cfg.Linux.CgroupParent = ps.cgroupParent
	id, err := k.cfg.Runtime.RunPodSandbox(ctx, cfg)
	if errors.Is(err, cri.ErrAlreadyExists) {
		ps.sandboxAttempt++
		cfg.Metadata.Attempt = ps.sandboxAttempt
		id, err = k.cfg.Runtime.RunPodSandbox(ctx, cfg)
	}
	if err != nil {
		k.podEvent(pod, core.EventTypeWarning, EventFailedCreatePodSandBox, "Failed to create pod sandbox: %v", err)
		return fmt.Errorf("run sandbox of pod %s: %w", podKey(pod), err)
	}
	st, err := k.cfg.Runtime.PodSandboxStatus(ctx, id)
	if err != nil {
		return fmt.Errorf("sandbox %s status: %w", id, err)
	}
	ps.sandboxID, ps.sandboxCfg, ps.netnsPath, ps.networkReady = id, cfg, st.NetworkNamespacePath, false
	k.setSandbox(id, pod.UID)
	return nil
}

// ensureNetwork starts attaching the sandbox to the pod network (CNI SetUp
// with its netns) and recording the pod IPs; without a Network, IPs come
// from the fake allocator. The attachment runs while the containers are
// created; ps.awaitNetwork waits for it (before any container starts).
func (k *Kubelet) ensureNetwork(ctx context.Context, pod *core.Pod, ps *podState) error {
	if ps.networkReady || ps.netWait != nil {
		return nil
	}
	sandboxID, pn := ps.sandboxID, k.podNetwork(pod, ps)
	done := make(chan struct{})
	var ips []string
	var err error
	go func() { // joined by awaitNetwork in the same sync
		defer close(done)
		ips, err = k.setUpNetwork(ctx, pod, sandboxID, pn)
	}()
	ps.netWait = func() error {
		<-done
		ps.netWait = nil
		if err != nil {
			return err
		}
		ps.podIPs, ps.networkReady = ips, true
		return nil
	}
	return nil
}

// awaitNetwork waits for a network attachment started by ensureNetwork.
func (ps *podState) awaitNetwork() error {
	if ps.netWait == nil {
		if !ps.networkReady && ps.sandboxID != "" {
			return fmt.Errorf("pod network is not set up")
		}
		return nil
	}
	return ps.netWait()
}

// setUpNetwork attaches the sandbox and records its IPs in the runtime.
func (k *Kubelet) setUpNetwork(ctx context.Context, pod *core.Pod, sandboxID string, pn cni.PodNetwork) ([]string, error) {
	var ips []string
	switch {
	case pod.Spec.HostNetwork:
		return []string{k.cfg.NodeIP.String()}, nil
	case k.cfg.Network == nil:
		a, err := k.ips.allocate(pod.UID)
		if err != nil {
			return nil, err
		}
		ips = []string{a.String()}
	default:
		res, err := k.cfg.Network.SetUp(ctx, pn)
		if err != nil {
			if ctx.Err() == nil {
				k.podEvent(pod, core.EventTypeWarning, EventFailedCreatePodSandBox,
					"Failed to create pod sandbox: failed to set up network for sandbox %q: %v", sandboxID, err)
			}
			return nil, fmt.Errorf("set up network of pod %s: %w", podKey(pod), err)
		}
		for _, a := range res.PodIPs() {
			ips = append(ips, a.String())
		}
	}
	if len(ips) > 0 {
		n := cri.PodSandboxNetworkStatus{IP: ips[0], AdditionalIPs: ips[1:]}
		if err := k.cfg.Runtime.UpdatePodSandboxNetwork(ctx, sandboxID, n); err != nil {
			return nil, fmt.Errorf("record pod IP: %w", err)
		}
	}
	return ips, nil
}

func (k *Kubelet) podNetwork(pod *core.Pod, ps *podState) cni.PodNetwork {
	pn := cni.PodNetwork{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID), SandboxID: ps.sandboxID, NetNS: ps.netnsPath}
	for _, pm := range ps.sandboxCfg.PortMappings {
		m := cni.PortMapping{HostPort: pm.HostPort, ContainerPort: pm.ContainerPort, Protocol: cni.Protocol(pm.Protocol)}
		if a, err := netip.ParseAddr(pm.HostIP); err == nil {
			m.HostIP = a
		}
		pn.PortMappings = append(pn.PortMappings, m)
	}
	return pn
}

// stopSandbox stops the pod's sandbox and detaches its network; the sandbox
// record stays until the pod is deleted.
func (k *Kubelet) stopSandbox(ctx context.Context, pod *core.Pod, ps *podState) error {
	if ps.sandboxID == "" {
		return nil
	}
	if k.cfg.Network != nil && !pod.Spec.HostNetwork {
		if err := k.cfg.Network.TearDown(ctx, k.podNetwork(pod, ps)); err != nil {
			return fmt.Errorf("tear down network of pod %s: %w", podKey(pod), err)
		}
	}
	if err := k.cfg.Runtime.StopPodSandbox(ctx, ps.sandboxID); err != nil && !errors.Is(err, cri.ErrNotFound) {
		return fmt.Errorf("stop sandbox %s: %w", ps.sandboxID, err)
	}
	return nil
}

// removeSandbox tears down the network of sandbox id (before removing it,
// so CNI still sees the netns), stops and removes it.
func (k *Kubelet) removeSandbox(ctx context.Context, pod *core.Pod, id string) error {
	if k.cfg.Network != nil {
		pn := cni.PodNetwork{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID), SandboxID: id}
		if st, err := k.cfg.Runtime.PodSandboxStatus(ctx, id); err == nil {
			pn.NetNS = st.NetworkNamespacePath
		}
		if err := k.cfg.Network.TearDown(ctx, pn); err != nil {
			return fmt.Errorf("tear down network of sandbox %s: %w", id, err)
		}
	} else {
		k.ips.release(pod.UID)
	}
	if err := k.cfg.Runtime.StopPodSandbox(ctx, id); err != nil && !errors.Is(err, cri.ErrNotFound) {
		return fmt.Errorf("stop sandbox %s: %w", id, err)
	}
	if err := k.cfg.Runtime.RemovePodSandbox(ctx, id); err != nil && !errors.Is(err, cri.ErrNotFound) {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	k.setSandbox(id, "")
	return nil
}

// attemptString formats a CRI attempt for log file names.
func attemptString(a uint32) string { return strconv.FormatUint(uint64(a), 10) }

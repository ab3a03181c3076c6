package framework

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
)

// HostPort is one host port a pod uses (core.HostPort).
type HostPort = core.HostPort

// PodHostPorts returns the host ports pod's containers ask for
// (core.PodHostPorts).
func PodHostPorts(pod *core.Pod) []HostPort { return core.PodHostPorts(pod) }

// NodeInfo is one node and the pods the scheduler counts on it (bound and
// assumed): the sum of their requests, their host ports, which of them
// carry pod (anti-)affinity, and the images the node has. The cache owns
// the live NodeInfos and mutates them under its lock; plugins see clones
// in a Snapshot and must treat them as read-only. Generation increases
// with every change, which is how a Snapshot knows what to copy.
type NodeInfo struct {
	node *core.Node
	// Copied from node so the hot predicates read this struct only.
	name          string
	unschedulable bool
	taints        []core.Taint

	// Pods are the pods on the node, in the order they were added.
	Pods []*PodInfo
	// PodsWithAffinity are the Pods that have any pod (anti-)affinity term.
	PodsWithAffinity []*PodInfo
	// PodsWithRequiredAntiAffinity are the Pods with required anti-affinity.
	PodsWithRequiredAntiAffinity []*PodInfo
	// UsedPorts are the host ports the Pods use.
	UsedPorts []HostPort
	// Requested is the sum of the Pods' requests; NonZeroRequested the
	// same with the scoring defaults for pods requesting no CPU or memory.
	Requested        Resource
	NonZeroRequested Resource
	// Allocatable is the node's status.allocatable (capacity when unset).
	Allocatable Resource
	// ImageSizes maps every name of every image on the node to its size.
	ImageSizes map[string]int64
	// Generation is set by the owner on every change.
	Generation int64
}

// NewNodeInfo returns a NodeInfo for node (which may be nil for pods whose
// node is not known yet) with pods on it.
func NewNodeInfo(node *core.Node, pods ...*PodInfo) *NodeInfo {
	n := &NodeInfo{}
	n.SetNode(node)
	for _, p := range pods {
		n.AddPod(p)
	}
	return n
}

// Node returns the node, nil when only pods are known.
func (n *NodeInfo) Node() *core.Node {
	if n == nil {
		return nil
	}
	return n.node
}

// Name returns the node's name ("" when unknown).
func (n *NodeInfo) Name() string { return n.name }

// Unschedulable returns the node's spec.unschedulable (cordoned).
func (n *NodeInfo) Unschedulable() bool { return n.unschedulable }

// Taints returns the node's taints; the slice is the node's, read-only.
func (n *NodeInfo) Taints() []core.Taint { return n.taints }

// SetNode replaces the node and recomputes what derives from it.
func (n *NodeInfo) SetNode(node *core.Node) {
	n.node = node
	n.Allocatable = Resource{}
	n.ImageSizes = nil
	n.name, n.unschedulable, n.taints = "", false, nil
	if node == nil {
		return
	}
	n.name, n.unschedulable, n.taints = node.Name, node.Spec.Unschedulable, node.Spec.Taints
	alloc := node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = node.Status.Capacity
	}
	n.Allocatable = NewResource(alloc)
	if len(node.Status.Images) > 0 {
		n.ImageSizes = make(map[string]int64, len(node.Status.Images))
		for _, img := range node.Status.Images {
			for _, name := range img.Names {
				n.ImageSizes[normalizeImage(name)] = img.SizeBytes
			}
		}
	}
}

// AddPod counts pi on the node.
func (n *NodeInfo) AddPod(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	if pi.HasAffinity() {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
	}
	if len(pi.RequiredAntiAffinity) > 0 {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
	}
	n.Requested.Add(&pi.Requests)
	n.NonZeroRequested.Add(&pi.NonZeroRequests)
	n.UsedPorts = append(n.UsedPorts, PodHostPorts(pi.Pod)...)
}

// RemovePod uncounts the pod with pod's UID (or, without UID, its
// namespace and name). The error wraps ErrNotFound when it is not there.
func (n *NodeInfo) RemovePod(pod *core.Pod) error {
	i := n.indexOf(pod)
	if i < 0 {
		return fmt.Errorf("pod %s on node %q: %w", PodKey(pod), n.Name(), ErrNotFound)
	}
	pi := n.Pods[i]
	n.Pods = deleteAt(n.Pods, i)
	n.PodsWithAffinity = removePodInfo(n.PodsWithAffinity, pi)
	n.PodsWithRequiredAntiAffinity = removePodInfo(n.PodsWithRequiredAntiAffinity, pi)
	n.Requested.Sub(&pi.Requests)
	n.NonZeroRequested.Sub(&pi.NonZeroRequests)
	for _, hp := range PodHostPorts(pi.Pod) {
		for j := range n.UsedPorts {
			if n.UsedPorts[j] == hp {
				n.UsedPorts = append(n.UsedPorts[:j:j], n.UsedPorts[j+1:]...)
				break
			}
		}
	}
	return nil
}

func (n *NodeInfo) indexOf(pod *core.Pod) int {
	for i, p := range n.Pods {
		if pod.UID != "" && p.Pod.UID == pod.UID {
			return i
		}
		if pod.UID == "" && p.Pod.Namespace == pod.Namespace && p.Pod.Name == pod.Name {
			return i
		}
	}
	return -1
}

// deleteAt removes s[i] into a fresh backing array, so clones that share
// the old one are unaffected.
func deleteAt(s []*PodInfo, i int) []*PodInfo {
	out := make([]*PodInfo, 0, len(s)-1)
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}

func removePodInfo(s []*PodInfo, pi *PodInfo) []*PodInfo {
	for i, p := range s {
		if p == pi {
			return deleteAt(s, i)
		}
	}
	return s
}

// PortsFree reports whether none of ports conflicts with a used port.
func (n *NodeInfo) PortsFree(ports []HostPort) bool {
	for _, p := range ports {
		for _, u := range n.UsedPorts {
			if p.Conflicts(u) {
				return false
			}
		}
	}
	return true
}

// Clone returns a copy that shares the PodInfos (immutable) and the node
// but owns its slices, so changes to either do not reach the other.
func (n *NodeInfo) Clone() *NodeInfo {
	c := *n
	c.Pods = cloneSlice(n.Pods)
	c.PodsWithAffinity = cloneSlice(n.PodsWithAffinity)
	c.PodsWithRequiredAntiAffinity = cloneSlice(n.PodsWithRequiredAntiAffinity)
	c.UsedPorts = cloneSlice(n.UsedPorts)
	c.Requested = n.Requested.Clone()
	c.NonZeroRequested = n.NonZeroRequested.Clone()
	c.Allocatable = n.Allocatable.Clone()
	return &c
}

// cloneSlice copies s with capacity equal to its length, so an append to
// the copy never writes into s's array.
func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// normalizeImage adds the ":latest" tag to an image name without tag or
// digest, as the kubelet reports names.
func normalizeImage(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		switch name[i] {
		case '@', ':':
			return name
		case '/':
			return name + ":latest"
		}
	}
	return name + ":latest"
}

// NormalizeImage is normalizeImage for plugins: "nginx" → "nginx:latest".
func NormalizeImage(name string) string { return normalizeImage(name) }

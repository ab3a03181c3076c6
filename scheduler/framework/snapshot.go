package framework

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
)

// Snapshot is the read-only view of the cluster one scheduling cycle
// works on: a NodeInfo per known node, in a stable order, plus the nodes
// that hold pods with (anti-)affinity and how many nodes have each image.
// The scheduler's cache brings its snapshot up to date before each cycle
// with Apply, copying only the NodeInfos whose generation changed, so the
// cost of a cycle does not grow with the number of unchanged nodes.
//
// A Snapshot is not safe for concurrent mutation: one goroutine (the
// scheduling loop) calls Apply between cycles; during a cycle any number
// of goroutines may read it.
type Snapshot struct {
	nodes          map[string]*NodeInfo
	list           []*NodeInfo
	withAffinity   []*NodeInfo
	withAntiAff    []*NodeInfo
	imageNodeCount map[string]int
	generation     int64
}

// NewEmptySnapshot returns a snapshot with no nodes, at generation 0.
func NewEmptySnapshot() *Snapshot {
	return &Snapshot{nodes: map[string]*NodeInfo{}, imageNodeCount: map[string]int{}}
}

// NewSnapshot builds a snapshot from nodes and the pods bound to them
// (pods naming an unknown node, or none, are ignored). It is what tests
// and simulations start from.
func NewSnapshot(nodes []*core.Node, pods []*core.Pod) *Snapshot {
	infos := make(map[string]*NodeInfo, len(nodes))
	ordered := make([]*NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		ni := NewNodeInfo(n)
		infos[n.Name] = ni
		ordered = append(ordered, ni)
	}
	for _, p := range pods {
		if ni, ok := infos[p.Spec.NodeName]; ok {
			ni.AddPod(NewPodInfo(p))
		}
	}
	s := NewEmptySnapshot()
	s.Apply(1, ordered, nil)
	return s
}

// Generation is the generation of the newest change the snapshot holds.
func (s *Snapshot) Generation() int64 { return s.generation }

// Apply brings the snapshot to generation gen: every NodeInfo in upserts
// (whose node must be set) replaces the snapshot's copy of that node or
// is added, and every name in deletes is removed. The snapshot stores
// clones; the callers keep their NodeInfos.
func (s *Snapshot) Apply(gen int64, upserts []*NodeInfo, deletes []string) {
	membership := len(deletes) > 0
	affinity := false
	for _, ni := range upserts {
		name := ni.Name()
		old, ok := s.nodes[name]
		if ok {
			affinity = affinity || len(old.PodsWithAffinity) > 0
			s.countImages(old, -1)
			*old = *ni.Clone()
		} else {
			old = ni.Clone()
			s.nodes[name] = old
			s.list = append(s.list, old)
		}
		affinity = affinity || len(old.PodsWithAffinity) > 0
		s.countImages(old, +1)
	}
	for _, name := range deletes {
		if old, ok := s.nodes[name]; ok {
			s.countImages(old, -1)
			affinity = affinity || len(old.PodsWithAffinity) > 0
			delete(s.nodes, name)
		}
	}
	if membership {
		s.rebuildList()
	}
	if affinity || membership {
		s.rebuildAffinity()
	}
	if gen > s.generation {
		s.generation = gen
	}
}

func (s *Snapshot) countImages(ni *NodeInfo, d int) {
	for name := range ni.ImageSizes {
		s.imageNodeCount[name] += d
		if s.imageNodeCount[name] <= 0 {
			delete(s.imageNodeCount, name)
		}
	}
}

func (s *Snapshot) rebuildList() {
	out := s.list[:0]
	for _, ni := range s.list {
		if cur, ok := s.nodes[ni.Name()]; ok && cur == ni {
			out = append(out, ni)
		}
	}
	clear(s.list[len(out):])
	s.list = out
}

func (s *Snapshot) rebuildAffinity() {
	s.withAffinity, s.withAntiAff = s.withAffinity[:0], s.withAntiAff[:0]
	for _, ni := range s.list {
		if len(ni.PodsWithAffinity) > 0 {
			s.withAffinity = append(s.withAffinity, ni)
		}
		if len(ni.PodsWithRequiredAntiAffinity) > 0 {
			s.withAntiAff = append(s.withAntiAff, ni)
		}
	}
}

// List returns every NodeInfo, in a stable order. The slice is the
// snapshot's: do not modify it.
func (s *Snapshot) List() []*NodeInfo { return s.list }

// NumNodes returns the number of nodes.
func (s *Snapshot) NumNodes() int { return len(s.list) }

// Get returns the NodeInfo of node name, or an error wrapping ErrNotFound.
func (s *Snapshot) Get(name string) (*NodeInfo, error) {
	ni, ok := s.nodes[name]
	if !ok {
		return nil, fmt.Errorf("node %q: %w", name, ErrNotFound)
	}
	return ni, nil
}

// HavePodsWithAffinityList returns the nodes with pods that have any pod
// (anti-)affinity term.
func (s *Snapshot) HavePodsWithAffinityList() []*NodeInfo { return s.withAffinity }

// HavePodsWithRequiredAntiAffinityList returns the nodes with pods that
// have required anti-affinity.
func (s *Snapshot) HavePodsWithRequiredAntiAffinityList() []*NodeInfo { return s.withAntiAff }

// ImageNodeCount returns how many nodes have the image (normalized name).
func (s *Snapshot) ImageNodeCount(image string) int { return s.imageNodeCount[image] }

// AssumePod adds pod to the snapshot's copy of node nodeName, as a
// simulation does after placing it. The error wraps ErrNotFound for an
// unknown node. The snapshot's generation is not changed.
func (s *Snapshot) AssumePod(pi *PodInfo, nodeName string) error {
	ni, err := s.Get(nodeName)
	if err != nil {
		return err
	}
	had := len(ni.PodsWithAffinity) > 0
	ni.AddPod(pi)
	if !had && len(ni.PodsWithAffinity) > 0 {
		s.rebuildAffinity()
	}
	return nil
}

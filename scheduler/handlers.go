package scheduler

import (
	"maps"
	"reflect"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
)

// buildInformers makes the scheduler's own informers (not started).
func (s *Scheduler) buildInformers() {
	c := s.cfg.Client
	s.pods, s.nodes = s.cfg.Pods, s.cfg.Nodes
	if s.pods == nil {
		strip := func(p *core.Pod) (*core.Pod, error) { p.ManagedFields = nil; return p, nil }
		s.pods = informer.New[*core.Pod](informer.NewListerWatcher(client.For[core.Pod](c, ""), "", ""), informer.Config[*core.Pod]{
			Name: "pods", Transform: strip, Logger: s.log})
	}
	if s.nodes == nil {
		strip := func(n *core.Node) (*core.Node, error) { n.ManagedFields = nil; return n, nil }
		s.nodes = informer.New[*core.Node](informer.NewListerWatcher(client.For[core.Node](c, ""), "", ""), informer.Config[*core.Node]{
			Name: "nodes", Transform: strip, Logger: s.log})
	}
	s.namespaces = newNamespaceInformer(informer.NewListerWatcher(client.For[core.Namespace](c, ""), "", ""), s)
	s.algo.namespaces = namespaceLabels{s.namespaces}
	if s.cfg.PriorityClasses {
		s.classes = informer.New[*scheduling.PriorityClass](informer.NewListerWatcher(client.For[scheduling.PriorityClass](c, ""), "", ""),
			informer.Config[*scheduling.PriorityClass]{Name: "priorityclasses", Logger: s.log})
	}
}

// addHandlers registers the event handlers and returns their synced
// functions, and the registrations on the shared informers (Config.Pods,
// Config.Nodes), which Run removes when it returns.
func (s *Scheduler) addHandlers() (synced []func() bool, shared []*informer.Registration) {
	regs := []func() bool{s.namespaces.HasSynced}
	if s.classes != nil {
		regs = append(regs, s.classes.HasSynced)
	}
	if s.volumes != nil {
		regs = append(regs, s.volumes.addHandlers(func() { s.queue.MoveOnEvent(EventVolumeChange) })...)
	}
	if s.dra != nil {
		regs = append(regs, s.dra.addHandlers(func() { s.queue.MoveOnEvent(EventDRAChange) })...)
	}
	// No resyncs: the scheduler's cache follows changes only (a shared
	// informer's default period is its other users').
	nr := s.nodes.AddEventHandler(informer.HandlerFuncs[*core.Node]{
		AddFunc: func(n *core.Node, _ bool) {
			s.cache.AddNode(n)
			s.queue.MoveOnEvent(EventNodeAdd)
		},
		UpdateFunc: func(o, n *core.Node) {
			s.cache.UpdateNode(n)
			if nodeSchedulingChanged(o, n) {
				s.queue.MoveOnEvent(EventNodeUpdate)
			}
		},
		DeleteFunc: func(obj any) {
			if n, ok := informer.ObjectOf[*core.Node](obj); ok {
				s.cache.RemoveNode(n.Name)
			}
		},
	}, informer.WithResync(0))
	pr := s.pods.AddEventHandler(informer.HandlerFuncs[*core.Pod]{
		AddFunc:    func(p *core.Pod, _ bool) { s.onPodAdd(p) },
		UpdateFunc: s.onPodUpdate,
		DeleteFunc: s.onPodDelete,
	}, informer.WithResync(0))
	if s.cfg.Nodes != nil {
		shared = append(shared, nr)
	}
	if s.cfg.Pods != nil {
		shared = append(shared, pr)
	}
	return append(regs, nr.HasSynced, pr.HasSynced), shared
}

// nodeSchedulingChanged reports whether a node change can make a parked
// pod fit (heartbeats alone cannot).
func nodeSchedulingChanged(o, n *core.Node) bool {
	return o.Spec.Unschedulable != n.Spec.Unschedulable ||
		!reflect.DeepEqual(o.Spec.Taints, n.Spec.Taints) ||
		!maps.Equal(o.Labels, n.Labels) ||
		!reflect.DeepEqual(o.Status.Allocatable, n.Status.Allocatable)
}

func (s *Scheduler) responsible(p *core.Pod) bool {
	name := p.Spec.SchedulerName
	if name == "" {
		name = framework.DefaultSchedulerName
	}
	_, ok := s.fwks[name]
	return ok
}

// withPriority returns p, or a shallow copy with spec.priority resolved
// from its PriorityClass when the scheduler watches classes.
func (s *Scheduler) withPriority(p *core.Pod) *core.Pod {
	if p.Spec.Priority != nil || s.classes == nil {
		return p
	}
	var v int32
	found := false
	for _, pc := range s.classes.Lister().List(nil) {
		if (p.Spec.PriorityClassName != "" && pc.Name == p.Spec.PriorityClassName) ||
			(p.Spec.PriorityClassName == "" && pc.GlobalDefault) {
			v, found = pc.Value, true
			break
		}
	}
	if !found {
		return p
	}
	cp := *p
	cp.Spec.Priority = &v
	return &cp
}

func (s *Scheduler) onPodAdd(p *core.Pod) {
	if p.Spec.NodeName != "" {
		s.addBound(p)
		return
	}
	if s.responsible(p) && !framework.IsTerminating(p) && len(p.Spec.SchedulingGates) == 0 {
		s.queue.Add(s.withPriority(p))
	}
}

func (s *Scheduler) addBound(p *core.Pod) {
	s.queue.Delete(p)
	s.nominator.remove(p)
	if core.IsPodTerminal(p) {
		s.cache.RemovePod(p)
		s.queue.MoveOnEvent(EventAssignedPodDone)
		return
	}
	s.cache.AddPod(s.withPriority(p))
	if _, _, parked := s.queue.Len(); parked > 0 {
		s.queue.MoveOnEvent(EventAssignedPodAdd)
	}
}

func (s *Scheduler) onPodUpdate(o, n *core.Pod) {
	if n.Spec.NodeName != "" && o.Spec.NodeName == n.Spec.NodeName && !core.IsPodTerminal(n) {
		// A bound pod changed (status, mostly): recount it; only a label
		// change can matter to parked pods (affinity, spread).
		s.cache.UpdatePod(s.withPriority(n))
		if !maps.Equal(o.Labels, n.Labels) {
			s.queue.MoveOnEvent(EventAssignedPodAdd)
		}
		return
	}
	if n.Spec.NodeName != "" {
		s.addBound(n)
		return
	}
	if !s.responsible(n) || s.cache.IsAssumed(n) {
		return
	}
	if framework.IsTerminating(n) || len(n.Spec.SchedulingGates) > 0 {
		s.queue.Delete(n)
		return
	}
	if o.ResourceVersion == n.ResourceVersion ||
		(reflect.DeepEqual(o.Spec, n.Spec) && maps.Equal(o.Labels, n.Labels)) {
		return // a resync, or a status-only change (ours, mostly): nothing to reconsider
	}
	s.queue.Update(s.withPriority(n))
}

func (s *Scheduler) onPodDelete(obj any) {
	p, ok := informer.ObjectOf[*core.Pod](obj)
	if !ok {
		return
	}
	s.nominator.remove(p)
	if p.Spec.NodeName != "" {
		s.cache.RemovePod(p)
	} else {
		s.queue.Delete(p)
	}
	s.queue.MoveOnEvent(EventPodDelete)
}

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// Placement is where a simulation put one pod: Node, or Err (a *FitError
// when nothing fits).
type Placement struct {
	Pod  *core.Pod
	Node string
	Err  error
}

// Simulator runs the scheduling algorithm against an in-memory Snapshot
// without binding anything: "would these 200 pods fit, and where?", for
// autoscalers and capacity planning (start from Cache.Snapshot for the
// live cluster, or framework.NewSnapshot). It uses the same frameworks and
// plugins as the scheduler; preemption is not simulated. A Simulator is
// not safe for concurrent use (it keeps the round-robin start index).
type Simulator struct {
	profiles map[string]*framework.Framework
	algo     *algorithm
}

// NewSimulator builds a simulator from profiles (the built-in default
// profile when none; see plugins.DefaultProfile) and extenders. Errors
// wrap ErrInvalidConfig.
func NewSimulator(profiles []framework.Profile, extenders ...*Extender) (*Simulator, error) {
	fwks, err := buildFrameworks(profiles)
	if err != nil {
		return nil, err
	}
	return &Simulator{profiles: fwks, algo: newAlgorithm(runtime.GOMAXPROCS(0), extenders, nil)}, nil
}

// SetNamespaces gives the simulation the namespaces and their labels,
// which affinity terms with a namespaceSelector select by; without it
// only an empty namespaceSelector (every namespace) selects anything.
// Call it before scheduling, not concurrently with it.
func (s *Simulator) SetNamespaces(ns framework.Namespaces) { s.algo.namespaces = ns }

// Schedule places pods one after the other, in the order given, into
// snap: each placed pod is added to snap (which is modified) so later
// pods see it. Pods that do not fit are left out and reported. It stops
// early, reporting ctx's error for the rest, when ctx ends.
func (s *Simulator) Schedule(ctx context.Context, snap *framework.Snapshot, pods []*core.Pod) []Placement {
	out := make([]Placement, len(pods))
	for i, pod := range pods {
		out[i] = Placement{Pod: pod}
		if err := ctx.Err(); err != nil {
			out[i].Err = err
			continue
		}
		node, err := s.ScheduleOne(ctx, snap, pod)
		out[i].Node, out[i].Err = node, err
	}
	return out
}

// ScheduleOne places one pod into snap and returns the node.
func (s *Simulator) ScheduleOne(ctx context.Context, snap *framework.Snapshot, pod *core.Pod) (string, error) {
	fwk, err := frameworkFor(s.profiles, pod)
	if err != nil {
		return "", err
	}
	pi := framework.NewPodInfo(pod)
	state := framework.NewCycleState()
	state.SetPodInfo(pi)
	res, err := s.algo.schedule(ctx, fwk, state, pod, snap)
	if errors.Is(err, ErrNoNodes) {
		return "", &FitError{Pod: framework.PodKey(pod)}
	}
	if err != nil {
		return "", err
	}
	placed := *pod
	placed.Spec.NodeName = res.Node
	placedInfo := *pi
	placedInfo.Pod = &placed
	if err := snap.AssumePod(&placedInfo, res.Node); err != nil {
		return "", err
	}
	return res.Node, nil
}

// buildFrameworks makes one framework per profile, keyed by scheduler
// name; no profiles means the default one.
func buildFrameworks(profiles []framework.Profile) (map[string]*framework.Framework, error) {
	if len(profiles) == 0 {
		profiles = []framework.Profile{defaultProfile()}
	}
	out := make(map[string]*framework.Framework, len(profiles))
	for _, p := range profiles {
		f, err := framework.New(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		if _, dup := out[f.SchedulerName()]; dup {
			return nil, fmt.Errorf("%w: two profiles for scheduler %q", ErrInvalidConfig, f.SchedulerName())
		}
		out[f.SchedulerName()] = f
	}
	return out, nil
}

func frameworkFor(fwks map[string]*framework.Framework, pod *core.Pod) (*framework.Framework, error) {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = framework.DefaultSchedulerName
	}
	f, ok := fwks[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownProfile, name)
	}
	return f, nil
}

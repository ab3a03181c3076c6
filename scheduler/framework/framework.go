package framework

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// WeightedPriority is a Priority with the weight its normalized scores are
// multiplied by when the scores of all priorities are summed.
type WeightedPriority struct {
	Priority
	Weight int64
}

// Profile is one scheduler configuration, in Go: the predicates a node
// must pass, the priorities that rank the survivors with their weights,
// and extra plugins that only hook other points (PostFilter, Reserve,
// Permit, PreBind, Bind). Each pod is scheduled by the profile whose
// SchedulerName equals its spec.schedulerName. Any plugin among
// Predicates, Priorities and Plugins that also implements PreFilter,
// PreScore, PostFilter, Reserve, Permit, PreBind or Bind is run at those points
// too, once per name.
type Profile struct {
	// SchedulerName selects pods; "" means "default-scheduler".
	SchedulerName string
	Predicates    []Predicate
	Priorities    []WeightedPriority
	Plugins       []Plugin
	// PercentageOfNodesToScore caps the nodes searched for feasibility
	// (1..100); 0 means the adaptive rule (50% at 100 nodes falling to 5%,
	// never fewer than 100 nodes).
	PercentageOfNodesToScore int32
}

// DefaultSchedulerName is the scheduler name of pods that name none.
const DefaultSchedulerName = "default-scheduler"

// Framework runs the plugins of one Profile. It is immutable after New
// apart from the set of pods waiting on Permit, and safe for concurrent
// use.
type Framework struct {
	profile     Profile
	preFilters  []PreFilter
	filters     []Predicate
	preScores   []PreScore
	scores      []WeightedPriority
	postFilters []PostFilter
	reserves    []Reserve
	permits     []Permit
	preBinds    []PreBind
	binders     []Binder

	mu        sync.Mutex
	waiting   map[meta.UID]chan *Status
	scoreBufs sync.Pool // *scoreBuf scratch of RunScore
}

// New checks p and classifies its plugins. Errors wrap ErrInvalidProfile.
func New(p Profile) (*Framework, error) {
	if p.SchedulerName == "" {
		p.SchedulerName = DefaultSchedulerName
	}
	if p.PercentageOfNodesToScore < 0 || p.PercentageOfNodesToScore > 100 {
		return nil, fmt.Errorf("%w: %s: percentageOfNodesToScore %d not in 0..100", ErrInvalidProfile, p.SchedulerName, p.PercentageOfNodesToScore)
	}
	f := &Framework{profile: p, waiting: map[meta.UID]chan *Status{}}
	seen := map[string]bool{}
	var all []Plugin
	add := func(pl Plugin) error {
		if pl == nil || pl.Name() == "" {
			return fmt.Errorf("%w: %s: a plugin without a name", ErrInvalidProfile, p.SchedulerName)
		}
		if !seen[pl.Name()] {
			seen[pl.Name()] = true
			all = append(all, pl)
		}
		return nil
	}
	for _, pr := range p.Predicates {
		if err := add(pr); err != nil {
			return nil, err
		}
		f.filters = append(f.filters, pr)
	}
	for _, w := range p.Priorities {
		if err := add(w.Priority); err != nil {
			return nil, err
		}
		if w.Weight <= 0 {
			return nil, fmt.Errorf("%w: %s: priority %q has weight %d, want > 0", ErrInvalidProfile, p.SchedulerName, w.Name(), w.Weight)
		}
		f.scores = append(f.scores, w)
	}
	for _, pl := range p.Plugins {
		if err := add(pl); err != nil {
			return nil, err
		}
	}
	f.classify(all)
	return f, nil
}

func (f *Framework) classify(all []Plugin) {
	for _, pl := range all {
		if x, ok := pl.(PreFilter); ok {
			f.preFilters = append(f.preFilters, x)
		}
		if x, ok := pl.(PreScore); ok {
			f.preScores = append(f.preScores, x)
		}
		if x, ok := pl.(PostFilter); ok {
			f.postFilters = append(f.postFilters, x)
		}
		if x, ok := pl.(Reserve); ok {
			f.reserves = append(f.reserves, x)
		}
		if x, ok := pl.(Permit); ok {
			f.permits = append(f.permits, x)
		}
		if x, ok := pl.(PreBind); ok {
			f.preBinds = append(f.preBinds, x)
		}
		if x, ok := pl.(Binder); ok {
			f.binders = append(f.binders, x)
		}
	}
}

// SchedulerName returns the profile's scheduler name.
func (f *Framework) SchedulerName() string { return f.profile.SchedulerName }

// PercentageOfNodesToScore returns the profile's setting (0 = adaptive).
func (f *Framework) PercentageOfNodesToScore() int32 { return f.profile.PercentageOfNodesToScore }

// HasFilters reports whether the profile has any predicate.
func (f *Framework) HasFilters() bool { return len(f.filters) > 0 }

// HasScores reports whether the profile has any priority.
func (f *Framework) HasScores() bool { return len(f.scores) > 0 }

// HasPostFilters reports whether a PostFilter (preemption) is configured.
func (f *Framework) HasPostFilters() bool { return len(f.postFilters) > 0 }

// RunPreFilter runs every PreFilter in order and returns the first
// failure, naming its plugin. A PreFilter returning Skip has nothing to
// check for this pod: its Filter is not called during the cycle.
func (f *Framework) RunPreFilter(ctx context.Context, state *CycleState, pod *core.Pod) *Status {
	var skip map[string]bool
	for _, pl := range f.preFilters {
		s := pl.PreFilter(ctx, state, pod)
		if s.IsSkip() {
			if skip == nil {
				skip = map[string]bool{}
			}
			skip[pl.Name()] = true
			continue
		}
		if !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	state.filters = f.filters
	if skip != nil {
		state.filters = make([]Predicate, 0, len(f.filters))
		for _, pl := range f.filters {
			if !skip[pl.Name()] {
				state.filters = append(state.filters, pl)
			}
		}
	}
	return nil
}

// RunPreFilterExtensionAddPod tells every predicate of the cycle (those
// not skipped) that implements PreFilterExtensions that podToAdd now runs
// on node; the first failure is returned, naming its plugin.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, pod *core.Pod, podToAdd *PodInfo, node *NodeInfo) *Status {
	return runExtensions(state, func(x PreFilterExtensions) *Status { return x.AddPod(ctx, state, pod, podToAdd, node) })
}

// RunPreFilterExtensionRemovePod is RunPreFilterExtensionAddPod for a pod
// taken off node.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, pod *core.Pod, podToRemove *PodInfo, node *NodeInfo) *Status {
	return runExtensions(state, func(x PreFilterExtensions) *Status { return x.RemovePod(ctx, state, pod, podToRemove, node) })
}

func runExtensions(state *CycleState, call func(PreFilterExtensions) *Status) *Status {
	for _, pl := range state.filters {
		if x, ok := pl.(PreFilterExtensions); ok {
			if s := call(x); !s.IsSuccess() {
				return s.WithPlugin(pl.Name())
			}
		}
	}
	return nil
}

// RunFilter runs the predicates on one node (those not skipped by their
// PreFilter when RunPreFilter ran on state) and returns the first
// rejection, naming its plugin; nil when the pod fits.
func (f *Framework) RunFilter(ctx context.Context, state *CycleState, pod *core.Pod, node *NodeInfo) *Status {
	filters := f.filters
	if state != nil && state.filters != nil {
		filters = state.filters
	}
	for _, pl := range filters {
		if s := pl.Filter(ctx, state, pod, node); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunPostFilter runs PostFilters until one succeeds and returns its
// nominated node; otherwise the last failure.
func (f *Framework) RunPostFilter(ctx context.Context, state *CycleState, pod *core.Pod, filtered NodeToStatus) (string, *Status) {
	last := NewStatus(Unschedulable, "no PostFilter")
	for _, pl := range f.postFilters {
		node, s := pl.PostFilter(ctx, state, pod, filtered)
		if s.IsSuccess() {
			return node, nil
		}
		last = s.WithPlugin(pl.Name())
		if s.Code() == Error {
			return "", last
		}
	}
	return "", last
}

// RunReserve calls Reserve on every plugin; on the first failure it
// unreserves all of them (in reverse order) and returns the failure.
func (f *Framework) RunReserve(ctx context.Context, state *CycleState, pod *core.Pod, node string) *Status {
	for i, pl := range f.reserves {
		if s := pl.Reserve(ctx, state, pod, node); !s.IsSuccess() {
			f.unreserve(ctx, state, pod, node, i+1)
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunUnreserve calls Unreserve on every Reserve plugin in reverse order.
func (f *Framework) RunUnreserve(ctx context.Context, state *CycleState, pod *core.Pod, node string) {
	f.unreserve(ctx, state, pod, node, len(f.reserves))
}

func (f *Framework) unreserve(ctx context.Context, state *CycleState, pod *core.Pod, node string, n int) {
	for i := n - 1; i >= 0; i-- {
		f.reserves[i].Unreserve(ctx, state, pod, node)
	}
}

// RunPermit asks every Permit plugin. A rejection or error is returned at
// once. When some plugin says Wait, the pod is registered as waiting and
// RunPermit returns Wait with the longest timeout asked; the caller then
// calls WaitOnPermit.
func (f *Framework) RunPermit(ctx context.Context, state *CycleState, pod *core.Pod, node string) (*Status, time.Duration) {
	var wait time.Duration
	for _, pl := range f.permits {
		s, d := pl.Permit(ctx, state, pod, node)
		switch s.Code() {
		case Success:
		case Wait:
			wait = max(wait, d)
		default:
			return s.WithPlugin(pl.Name()), 0
		}
	}
	if wait == 0 {
		return nil, 0
	}
	f.mu.Lock()
	f.waiting[pod.UID] = make(chan *Status, 1)
	f.mu.Unlock()
	return NewStatus(Wait), wait
}

// WaitOnPermit blocks until Allow or Reject is called for pod, timeout
// passes (Unschedulable) or ctx ends (Error).
func (f *Framework) WaitOnPermit(ctx context.Context, pod *core.Pod, timeout time.Duration) *Status {
	f.mu.Lock()
	ch, ok := f.waiting[pod.UID]
	f.mu.Unlock()
	if !ok {
		return nil
	}
	defer func() {
		f.mu.Lock()
		delete(f.waiting, pod.UID)
		f.mu.Unlock()
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s := <-ch:
		return s
	case <-t.C:
		return NewStatus(Unschedulable, "rejected due to timeout after waiting "+timeout.String()+" at permit")
	case <-ctx.Done():
		return AsStatus(ctx.Err())
	}
}

// Allow lets a pod waiting on Permit go on to binding; Reject fails it
// with reason. Both report whether the pod was waiting.
func (f *Framework) Allow(uid meta.UID) bool { return f.signal(uid, nil) }

// Reject fails a pod waiting on Permit; see Allow.
func (f *Framework) Reject(uid meta.UID, reason string) bool {
	return f.signal(uid, NewStatus(Unschedulable, reason))
}

func (f *Framework) signal(uid meta.UID, s *Status) bool {
	f.mu.Lock()
	ch, ok := f.waiting[uid]
	f.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case ch <- s:
	default:
	}
	return true
}

// RunPreBind calls PreBind on every plugin in order; the first status
// that is neither Success nor Skip is returned (with its plugin).
func (f *Framework) RunPreBind(ctx context.Context, state *CycleState, pod *core.Pod, node string) *Status {
	for _, pl := range f.preBinds {
		if s := pl.PreBind(ctx, state, pod, node); !s.IsSuccess() && !s.IsSkip() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunBind asks the binders in order until one does not Skip. With no
// binder, or only skipping ones, it returns Skip: the caller binds.
func (f *Framework) RunBind(ctx context.Context, state *CycleState, pod *core.Pod, node string) *Status {
	for _, pl := range f.binders {
		s := pl.Bind(ctx, state, pod, node)
		if s.IsSkip() {
			continue
		}
		return s.WithPlugin(pl.Name())
	}
	return NewStatus(Skip)
}

// HasPostFilter reports whether p is one of the framework's PostFilters
// (compared by identity).
func (f *Framework) HasPostFilter(p PostFilter) bool {
	for _, x := range f.postFilters {
		if x == p {
			return true
		}
	}
	return false
}

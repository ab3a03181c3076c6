package framework

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orkit/orkit/api/core"
)

// Parallelize calls fn(i) for every i in [0, n) on up to workers
// goroutines (at least one), handing out indexes in chunks, and returns
// when all calls have. It stops handing out work when ctx ends. The
// goroutines are owned by the call.
func Parallelize(ctx context.Context, workers, n int, fn func(i int)) {
	if n <= 0 {
		return
	}
	chunk := max(1, n/(workers*8))
	if workers <= 1 || n <= chunk {
		for i := 0; i < n && ctx.Err() == nil; i++ {
			fn(i)
		}
		return
	}
	workers = min(workers, (n+chunk-1)/chunk)
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		for ctx.Err() == nil {
			start := int(next.Add(int64(chunk))) - chunk
			if start >= n {
				return
			}
			for i := start; i < min(start+chunk, n); i++ {
				fn(i)
			}
		}
	}
	wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
}

// RunPreScore runs every PreScore; a Skip marks its priority to be
// skipped in RunScore. The first failure is returned.
func (f *Framework) RunPreScore(ctx context.Context, state *CycleState, pod *core.Pod, nodes []*NodeInfo) *Status {
	state.skipScore = nil
	for _, pl := range f.preScores {
		s := pl.PreScore(ctx, state, pod, nodes)
		if s.IsSkip() {
			if state.skipScore == nil {
				state.skipScore = map[string]bool{}
			}
			state.skipScore[pl.Name()] = true
			continue
		}
		if !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

var scoreBufs = sync.Pool{New: func() any { return new([]NodeScore) }}

// RunScore scores nodes with every priority not skipped by PreScore,
// normalizes, weights and sums: totals[i] is the weighted sum for
// nodes[i]. Scoring runs on up to workers goroutines. The first plugin
// failure is returned (naming the plugin) with nil totals.
func (f *Framework) RunScore(ctx context.Context, state *CycleState, pod *core.Pod, nodes []*NodeInfo, workers int) ([]int64, *Status) {
	totals := make([]int64, len(nodes))
	for _, w := range f.scores {
		if state.skipScore[w.Name()] {
			continue
		}
		if s := f.runOneScore(ctx, state, pod, nodes, w, totals, workers); !s.IsSuccess() {
			return nil, s
		}
	}
	return totals, nil
}

func (f *Framework) runOneScore(ctx context.Context, state *CycleState, pod *core.Pod, nodes []*NodeInfo, w WeightedPriority, totals []int64, workers int) *Status {
	bp := scoreBufs.Get().(*[]NodeScore)
	defer scoreBufs.Put(bp)
	if cap(*bp) < len(nodes) {
		*bp = make([]NodeScore, len(nodes))
	}
	scores := (*bp)[:len(nodes)]
	var failed atomic.Pointer[Status]
	Parallelize(ctx, workers, len(nodes), func(i int) {
		v, s := w.Score(ctx, state, pod, nodes[i])
		if !s.IsSuccess() {
			failed.CompareAndSwap(nil, s.WithPlugin(w.Name()))
		}
		scores[i] = NodeScore{Name: nodes[i].Name(), Score: v}
	})
	if s := failed.Load(); s != nil {
		return s
	}
	if ctx.Err() != nil {
		return AsStatus(ctx.Err())
	}
	if n, ok := w.Priority.(ScoreNormalizer); ok {
		if s := n.NormalizeScore(ctx, state, pod, scores); !s.IsSuccess() {
			return s.WithPlugin(w.Name())
		}
	}
	for i := range scores {
		v := scores[i].Score
		if v < MinNodeScore || v > MaxNodeScore {
			return NewStatus(Error, fmt.Sprintf("plugin %q returned score %d for node %q, want %d..%d",
				w.Name(), v, scores[i].Name, MinNodeScore, MaxNodeScore)).WithPlugin(w.Name())
		}
		totals[i] += v * w.Weight
	}
	return nil
}

// DefaultNormalizeScore scales scores so the highest becomes MaxNodeScore
// (or, with reverse, the lowest does and higher raw scores get less). All
// zero scores stay zero (MaxNodeScore each with reverse).
func DefaultNormalizeScore(scores []NodeScore, reverse bool) {
	var hi int64
	for i := range scores {
		hi = max(hi, scores[i].Score)
	}
	for i := range scores {
		v := scores[i].Score
		switch {
		case hi == 0 && reverse:
			v = MaxNodeScore
		case hi == 0:
			v = 0
		default:
			v = v * MaxNodeScore / hi
			if reverse {
				v = MaxNodeScore - v
			}
		}
		scores[i].Score = v
	}
}

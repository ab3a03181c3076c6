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

// ParallelizeChunks is Parallelize handing out [start, end) ranges of
// at most chunk indexes, for callers that keep per-range tallies.
func ParallelizeChunks(ctx context.Context, workers, n, chunk int, fn func(start, end int)) {
	if n <= 0 {
		return
	}
	chunk = max(1, chunk)
	if workers <= 1 || n <= chunk {
		for s := 0; s < n && ctx.Err() == nil; s += chunk {
			fn(s, min(s+chunk, n))
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
			fn(start, min(start+chunk, n))
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

// scoreBuf is the per-cycle scratch of RunScore, pooled.
type scoreBuf struct {
	active []WeightedPriority
	scores [][]NodeScore
	names  []string
}

// RunScore scores nodes with every priority not skipped by PreScore,
// normalizes, weights and sums: totals[i] is the weighted sum for
// nodes[i]. Scoring runs in one pass over the nodes on up to workers
// goroutines, each node scored by every priority. The first plugin
// failure is returned (naming the plugin) with nil totals.
func (f *Framework) RunScore(ctx context.Context, state *CycleState, pod *core.Pod, nodes []*NodeInfo, workers int) ([]int64, *Status) {
	buf, _ := f.scoreBufs.Get().(*scoreBuf)
	if buf == nil {
		buf = &scoreBuf{}
	}
	defer f.scoreBufs.Put(buf)
	buf.active = buf.active[:0]
	for _, w := range f.scores {
		if !state.skipScore[w.Name()] {
			buf.active = append(buf.active, w)
		}
	}
	for len(buf.scores) < len(buf.active) {
		buf.scores = append(buf.scores, nil)
	}
	for i := range buf.active {
		if cap(buf.scores[i]) < len(nodes) {
			buf.scores[i] = make([]NodeScore, len(nodes))
		}
		buf.scores[i] = buf.scores[i][:len(nodes)]
	}
	if cap(buf.names) < len(nodes) {
		buf.names = make([]string, len(nodes))
	}
	names := buf.names[:len(nodes)]
	var failed atomic.Pointer[Status]
	chunk := max(16, len(nodes)/(max(1, workers)*4))
	ParallelizeChunks(ctx, workers, len(nodes), chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			names[i] = nodes[i].Name()
		}
		for p, w := range buf.active {
			scores := buf.scores[p]
			for i := lo; i < hi; i++ {
				v, s := w.Score(ctx, state, pod, nodes[i])
				if !s.IsSuccess() {
					failed.CompareAndSwap(nil, s.WithPlugin(w.Name()))
				}
				scores[i] = NodeScore{Name: names[i], Score: v}
			}
		}
	})
	if s := failed.Load(); s != nil {
		return nil, s
	}
	if ctx.Err() != nil {
		return nil, AsStatus(ctx.Err())
	}
	totals := make([]int64, len(nodes))
	for p, w := range buf.active {
		if s := f.sumScores(ctx, state, pod, w, buf.scores[p], totals); !s.IsSuccess() {
			return nil, s
		}
	}
	return totals, nil
}

// sumScores normalizes one priority's scores, checks their range and
// adds them, weighted, to totals.
func (f *Framework) sumScores(ctx context.Context, state *CycleState, pod *core.Pod, w WeightedPriority, scores []NodeScore, totals []int64) *Status {
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

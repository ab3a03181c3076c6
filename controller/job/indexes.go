package job

import (
	"slices"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
)

// indexSet is a set of completion indexes.
type indexSet map[int]bool

func (s *indexSet) add(i int) {
	if *s == nil {
		*s = indexSet{}
	}
	(*s)[i] = true
}

func (s indexSet) len() int { return len(s) }

// String formats the set as Kubernetes' completedIndexes: sorted,
// consecutive runs of three or more as "a-b" ("1,3-5,7"), pairs as "a,b".
func (s indexSet) String() string {
	idx := make([]int, 0, len(s))
	for i := range s {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var parts []string
	for k := 0; k < len(idx); {
		end := k
		for end+1 < len(idx) && idx[end+1] == idx[end]+1 {
			end++
		}
		switch {
		case end == k:
			parts = append(parts, strconv.Itoa(idx[k]))
		case end == k+1:
			parts = append(parts, strconv.Itoa(idx[k]), strconv.Itoa(idx[end]))
		default:
			parts = append(parts, strconv.Itoa(idx[k])+"-"+strconv.Itoa(idx[end]))
		}
		k = end + 1
	}
	return strings.Join(parts, ",")
}

// parseIndexes reads a completedIndexes string, keeping the indexes below
// n and skipping what does not parse (a status someone else wrote).
func parseIndexes(s string, n int) indexSet {
	out := indexSet{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if found {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for i := max(a, 0); i <= b && i < n; i++ {
			out[i] = true
		}
	}
	return out
}

// podIndex returns the completion index of an Indexed Job's pod (from its
// annotation, else its label) and whether it is valid (in [0, n)).
func podIndex(p *core.Pod, n int) (int, bool) {
	v, ok := p.Annotations[batch.JobCompletionIndexAnnotation]
	if !ok {
		v, ok = p.Labels[batch.JobCompletionIndexAnnotation]
	}
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(v)
	return i, err == nil && i >= 0 && i < n
}

package loadgen

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Result is what one run of a mode measured: named figures in the order
// they were added.
type Result struct {
	Mode    string
	names   []string
	figures map[string]string
}

func newResult(mode string) *Result { return &Result{Mode: mode, figures: map[string]string{}} }

// add records one figure.
func (r *Result) add(name, format string, args ...any) {
	if _, ok := r.figures[name]; !ok {
		r.names = append(r.names, name)
	}
	r.figures[name] = fmt.Sprintf(format, args...)
}

// Figure returns the figure called name ("" when there is none).
func (r *Result) Figure(name string) string { return r.figures[name] }

// String is the result on one line: mode, then name=value pairs.
func (r *Result) String() string {
	var b strings.Builder
	b.WriteString(r.Mode)
	for _, n := range r.names {
		fmt.Fprintf(&b, " %s=%s", n, r.figures[n])
	}
	return b.String()
}

// latencies is a set of measured durations.
type latencies []time.Duration

// quantile returns the q-quantile (0 ≤ q ≤ 1) by nearest rank; 0 when empty.
func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// ms formats d in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// addLatencies records p50, p99 and max of l under prefix.
func (r *Result) addLatencies(prefix string, l latencies) {
	r.add(prefix+"p50", "%s", ms(l.quantile(0.50)))
	r.add(prefix+"p99", "%s", ms(l.quantile(0.99)))
	r.add(prefix+"max", "%s", ms(l.quantile(1)))
}

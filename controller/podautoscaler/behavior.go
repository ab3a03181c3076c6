package podautoscaler

import (
	"math"
	"sync"
	"time"

	"github.com/orkit/orkit/api/autoscaling"
)

// recommendation is one past desired count and when it was computed.
type recommendation struct {
	replicas int32
	at       time.Time
}

// history is what the controller remembers of one autoscaler between
// syncs: recent recommendations (for the stabilization windows) and
// recent rescales (for the policies' periods). Its methods are called by
// one worker at a time per autoscaler; the map holding histories is
// guarded by histories.mu.
type history struct {
	recs       []recommendation
	scaleUps   []event
	scaleDowns []event
}

// histories holds the history of every autoscaler, by namespace/name.
// Safe for concurrent use.
type histories struct {
	mu sync.Mutex
	m  map[string]*history
}

func (h *histories) get(key string) *history {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]*history{}
	}
	if h.m[key] == nil {
		h.m[key] = &history{}
	}
	return h.m[key]
}

func (h *histories) forget(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, key)
}

// Rules are the resolved scaling rules of both directions: the behavior's
// where it sets them, the defaults elsewhere (the scale-down window the
// controller's DownscaleStabilization when the behavior sets none).
type Rules struct {
	Up, Down autoscaling.HPAScalingRules
}

// ResolveRules fills b's gaps with Kubernetes' defaults.
func ResolveRules(b *autoscaling.HorizontalPodAutoscalerBehavior, downscaleWindow time.Duration) Rules {
	up, down := autoscaling.DefaultScaleUpRules(), autoscaling.DefaultScaleDownRules()
	if b != nil {
		up = merge(b.ScaleUp, up)
		down = merge(b.ScaleDown, down)
	}
	if down.StabilizationWindowSeconds == nil {
		w := int32(downscaleWindow / time.Second)
		down.StabilizationWindowSeconds = &w
	}
	return Rules{Up: *up, Down: *down}
}

func merge(r, def *autoscaling.HPAScalingRules) *autoscaling.HPAScalingRules {
	if r == nil {
		return def
	}
	out := *r
	if out.StabilizationWindowSeconds == nil {
		out.StabilizationWindowSeconds = def.StabilizationWindowSeconds
	}
	if out.SelectPolicy == nil {
		out.SelectPolicy = def.SelectPolicy
	}
	if out.Policies == nil {
		out.Policies = def.Policies
	}
	return &out
}

func seconds(s *int32) time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(*s) * time.Second
}

// stabilize returns the recommendation to act on, as Kubernetes
// stabilizes: scaling up, the lowest recommendation within the scale-up
// window; scaling down, the highest within the scale-down window. It
// records desired at now and drops what no window reaches any more.
func (h *history) stabilize(desired, current int32, r Rules, now time.Time) (int32, string, string) {
	out := desired
	window := seconds(r.Up.StabilizationWindowSeconds)
	better := func(a, b int32) int32 { return min(a, b) }
	reason, msg := "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"
	if desired < current {
		window = seconds(r.Down.StabilizationWindowSeconds)
		better = func(a, b int32) int32 { return max(a, b) }
		reason, msg = "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
	}
	keep := max(seconds(r.Up.StabilizationWindowSeconds), seconds(r.Down.StabilizationWindowSeconds))
	recs := h.recs[:0]
	for _, rec := range h.recs {
		if rec.at.After(now.Add(-window)) {
			out = better(out, rec.replicas)
		}
		if !rec.at.Before(now.Add(-keep)) {
			recs = append(recs, rec)
		}
	}
	h.recs = append(recs, recommendation{replicas: desired, at: now})
	return out, reason, msg
}

// limit applies the bounds and the policies' rates to desired, returning
// the count to set and why it is (or is not) limited.
func (h *history) limit(desired, current, minReplicas, maxReplicas int32, r Rules, now time.Time) (int32, string, string) {
	switch {
	case desired > current:
		limit := scaleUpLimit(current, h.scaleUps, h.scaleDowns, r.Up, now)
		limit = max(limit, current)
		allowed, reason, msg := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		if allowed > limit {
			allowed, reason, msg = limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		}
		if desired > allowed {
			return allowed, reason, msg
		}
	case desired < current:
		limit := scaleDownLimit(current, h.scaleUps, h.scaleDowns, r.Down, now)
		limit = min(limit, current)
		allowed, reason, msg := minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		if allowed < limit {
			allowed, reason, msg = limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		}
		if desired < allowed {
			return allowed, reason, msg
		}
	}
	return desired, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// record remembers a rescale from current to replicas at now.
func (h *history) record(current, replicas int32, now time.Time) {
	const keep = time.Duration(autoscaling.MaxPeriodSeconds) * time.Second
	prune := func(evs []event) []event {
		out := evs[:0]
		for _, e := range evs {
			if e.at.After(now.Add(-keep)) {
				out = append(out, e)
			}
		}
		return out
	}
	h.scaleUps, h.scaleDowns = prune(h.scaleUps), prune(h.scaleDowns)
	switch {
	case replicas > current:
		h.scaleUps = append(h.scaleUps, event{change: replicas - current, at: now})
	case replicas < current:
		h.scaleDowns = append(h.scaleDowns, event{change: current - replicas, at: now})
	}
}

// scaleUpLimit is the most replicas the policies allow now: per policy,
// the count at the start of its period plus what it allows, the largest
// (Max) or smallest (Min) of those; current when scaling up is Disabled.
func scaleUpLimit(current int32, ups, downs []event, r autoscaling.HPAScalingRules, now time.Time) int32 {
	sel := autoscaling.MaxChangePolicySelect
	if r.SelectPolicy != nil {
		sel = *r.SelectPolicy
	}
	if sel == autoscaling.DisabledPolicySelect {
		return current
	}
	result := int32(math.MinInt32)
	pick := func(a, b int32) int32 { return max(a, b) }
	if sel == autoscaling.MinChangePolicySelect {
		result, pick = math.MaxInt32, func(a, b int32) int32 { return min(a, b) }
	}
	for _, p := range r.Policies {
		period := time.Duration(p.PeriodSeconds) * time.Second
		start := current - changeWithin(ups, period, now) + changeWithin(downs, period, now)
		proposed := start + p.Value
		if p.Type == autoscaling.PercentScalingPolicy {
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		}
		result = pick(result, proposed)
	}
	return result
}

// scaleDownLimit is the fewest replicas the policies allow now: per
// policy, the count at the start of its period minus what it allows, the
// smallest (Max: the largest change) or largest (Min) of those; current
// when scaling down is Disabled.
func scaleDownLimit(current int32, ups, downs []event, r autoscaling.HPAScalingRules, now time.Time) int32 {
	sel := autoscaling.MaxChangePolicySelect
	if r.SelectPolicy != nil {
		sel = *r.SelectPolicy
	}
	if sel == autoscaling.DisabledPolicySelect {
		return current
	}
	result := int32(math.MaxInt32)
	pick := func(a, b int32) int32 { return min(a, b) }
	if sel == autoscaling.MinChangePolicySelect {
		result, pick = math.MinInt32, func(a, b int32) int32 { return max(a, b) }
	}
	for _, p := range r.Policies {
		period := time.Duration(p.PeriodSeconds) * time.Second
		start := current - changeWithin(ups, period, now) + changeWithin(downs, period, now)
		proposed := start - p.Value
		if p.Type == autoscaling.PercentScalingPolicy {
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		result = pick(result, proposed)
	}
	return result
}

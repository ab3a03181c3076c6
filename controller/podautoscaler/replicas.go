package podautoscaler

import (
	"fmt"
	"math"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/metrics"
)

// DefaultTolerance is how far the usage ratio may stray from 1 before the
// controller scales, as kube-controller-manager's
// --horizontal-pod-autoscaler-tolerance.
const DefaultTolerance = 0.1

// podGroups sorts the target's pods for one resource metric: ready pods
// with metrics (usage by pod name), unready pods (not Ready, counted as
// idle when scaling up CPU), pods without metrics, and pods ignored
// altogether (being deleted, or failed).
type podGroups struct {
	usage   map[string]int64 // milli-units (cpu) or units (others)
	unready map[string]bool
	missing map[string]bool
}

// groupPods sorts pods against the metrics (usage summed over the pod's
// containers, or of container when it is set).
func groupPods(pods []*core.Pod, pm []metrics.PodMetrics, res core.ResourceName, container string) podGroups {
	byName := make(map[string]*metrics.PodMetrics, len(pm))
	for i := range pm {
		byName[pm[i].Name] = &pm[i]
	}
	g := podGroups{usage: map[string]int64{}, unready: map[string]bool{}, missing: map[string]bool{}}
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == core.PodFailed {
			continue
		}
		if p.Status.Phase == core.PodPending {
			g.unready[p.Name] = true
			continue
		}
		m, ok := byName[p.Name]
		if !ok {
			g.missing[p.Name] = true
			continue
		}
		if res == core.ResourceCPU && !core.IsPodReady(p) {
			g.unready[p.Name] = true
			continue
		}
		var sum int64
		for _, c := range m.Containers {
			if container != "" && c.Name != container {
				continue
			}
			q := c.Usage[res]
			sum += quantityValue(&q, res)
		}
		g.usage[p.Name] = sum
	}
	return g
}

// quantityValue is q in the units the controller computes with: milli-cores
// for cpu, whole units for anything else (bytes of memory).
func quantityValue(q interface{ MilliValue() int64 }, res core.ResourceName) int64 {
	if res == core.ResourceCPU {
		return q.MilliValue()
	}
	return q.MilliValue() / 1000
}

// podRequests returns each pod's request of res (summed over its
// containers, or of container when set). A container without one is an
// error wrapping ErrMissingRequest, as in Kubernetes.
func podRequests(pods []*core.Pod, res core.ResourceName, container string) (map[string]int64, error) {
	out := make(map[string]int64, len(pods))
	for _, p := range pods {
		var sum int64
		for _, c := range p.Spec.Containers {
			if container != "" && c.Name != container {
				continue
			}
			q, ok := c.Resources.Requests[res]
			if !ok {
				return nil, fmt.Errorf("%w for %s in container %s of Pod %s", ErrMissingRequest, res, c.Name, p.Name)
			}
			sum += quantityValue(&q, res)
		}
		out[p.Name] = sum
	}
	return out, nil
}

// utilizationRatio returns the average utilization of the pods with usage
// (in percent of their requests), and its ratio to target.
func utilizationRatio(usage, requests map[string]int64, target int32) (ratio float64, utilization int32, avg int64, err error) {
	var totalUsage, totalReq int64
	for name, u := range usage {
		r, ok := requests[name]
		if !ok {
			continue
		}
		totalUsage += u
		totalReq += r
	}
	if totalReq == 0 {
		return 0, 0, 0, fmt.Errorf("%w: no pod with a request among %d with metrics", ErrNoMetrics, len(usage))
	}
	utilization = int32(totalUsage * 100 / totalReq)
	return float64(utilization) / float64(target), utilization, totalUsage / int64(len(usage)), nil
}

// Recommendation is what one metric asks for.
type Recommendation struct {
	// Replicas is the count the metric asks for.
	Replicas int32
	// Utilization is the average utilization in percent (utilization
	// targets only); AverageValue the average usage per pod in the
	// controller's units (milli-cores for cpu, bytes for memory).
	Utilization  int32
	AverageValue int64
}

// ResourceTarget is a resource metric's target: a utilization in percent
// of the requests, or (when Utilization is 0) an average value per pod in
// the controller's units.
type ResourceTarget struct {
	Resource     core.ResourceName
	Container    string
	Utilization  int32
	AverageValue int64
}

// ReplicasForResource computes what one resource metric asks for, as
// Kubernetes' replica calculator does: the usage ratio of the ready pods
// with metrics against the target; no change within tolerance; pods
// without metrics counted at 100% of their request when scaling down and
// 0% when scaling up, unready pods at 0% when scaling up; and no change
// when that reversal flips the direction.
func ReplicasForResource(current int32, t ResourceTarget, pods []*core.Pod, pm []metrics.PodMetrics, tolerance float64) (Recommendation, error) {
	if len(pm) == 0 {
		return Recommendation{}, ErrNoMetrics
	}
	g := groupPods(pods, pm, t.Resource, t.Container)
	if len(g.usage) == 0 {
		return Recommendation{}, fmt.Errorf("%w: none of the %d pods of the target has metrics", ErrNoMetrics, len(pods))
	}
	var requests map[string]int64
	ratioOf := func(usage map[string]int64) (float64, int32, int64, error) {
		if t.Utilization > 0 {
			return utilizationRatio(usage, requests, t.Utilization)
		}
		var sum int64
		for _, u := range usage {
			sum += u
		}
		avg := sum / int64(len(usage))
		return float64(sum) / float64(t.AverageValue*int64(len(usage))), 0, avg, nil
	}
	if t.Utilization > 0 {
		var err error
		if requests, err = podRequests(pods, t.Resource, t.Container); err != nil {
			return Recommendation{}, err
		}
	}
	ratio, util, avg, err := ratioOf(g.usage)
	if err != nil {
		return Recommendation{}, err
	}
	rec := Recommendation{Replicas: current, Utilization: util, AverageValue: avg}
	rebalance := ratio > 1 && len(g.unready) > 0
	if !rebalance && len(g.missing) == 0 {
		if math.Abs(1-ratio) <= tolerance {
			return rec, nil
		}
		rec.Replicas = int32(math.Ceil(ratio * float64(len(g.usage))))
		return rec, nil
	}
	filled := make(map[string]int64, len(g.usage)+len(g.missing)+len(g.unready))
	for k, v := range g.usage {
		filled[k] = v
	}
	for name := range g.missing {
		if ratio < 1 {
			filled[name] = fullUsage(t, requests, name)
		} else {
			filled[name] = 0
		}
	}
	if rebalance {
		for name := range g.unready {
			filled[name] = 0
		}
	}
	newRatio, _, _, err := ratioOf(filled)
	if err != nil {
		return Recommendation{}, err
	}
	if math.Abs(1-newRatio) <= tolerance || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1) {
		return rec, nil
	}
	n := int32(math.Ceil(newRatio * float64(len(filled))))
	if (newRatio < 1 && n > current) || (newRatio > 1 && n < current) {
		return rec, nil
	}
	rec.Replicas = n
	return rec, nil
}

// fullUsage is the usage a pod without metrics is assumed to have when
// scaling down: its request, or the target average value.
func fullUsage(t ResourceTarget, requests map[string]int64, name string) int64 {
	if t.Utilization > 0 {
		return requests[name]
	}
	return t.AverageValue
}

// event is one rescale: the change in replicas and when it happened.
type event struct {
	change int32
	at     time.Time
}

// changeWithin sums the changes of events in the last period before now.
func changeWithin(events []event, period time.Duration, now time.Time) int32 {
	var sum int32
	for _, e := range events {
		if e.at.After(now.Add(-period)) {
			sum += e.change
		}
	}
	return sum
}

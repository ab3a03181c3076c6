package garbagecollector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/orkit/orkit/informer/workqueue"
)

// Metrics are the collector's Prometheus collectors: objects in the
// graph, resources followed, deletions by propagation policy, dependents
// orphaned, foreground deletions completed, and the collectors of its
// work queue (name "garbagecollector"). Nothing is registered globally:
// the owner registers Metrics (a prometheus.Collector) on its registry.
// Safe for concurrent use.
type Metrics struct {
	graph      prometheus.GaugeFunc
	resources  prometheus.GaugeFunc
	deletions  *prometheus.CounterVec
	orphaned   prometheus.Counter
	foreground prometheus.Counter
	queue      *workqueue.Metrics
}

var _ prometheus.Collector = (*Metrics)(nil)

func newMetrics(gc *Controller) *Metrics {
	m := &Metrics{
		graph: prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "garbagecollector", Name: "graph_objects",
			Help: "Objects in the ownership graph."}, func() float64 { return float64(gc.graph.len()) }),
		resources: prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "garbagecollector", Name: "resources",
			Help: "Resources the collector follows."}, func() float64 { return float64(len(gc.Resources())) }),
		deletions: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "garbagecollector", Name: "deletions_total",
			Help: "Dependents deleted, by the propagation policy of the deletion."}, []string{"policy"}),
		orphaned: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "garbagecollector", Name: "orphaned_dependents_total",
			Help: "Dependents whose ownerReferences to an owner deleted with the Orphan policy were removed."}),
		foreground: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "garbagecollector", Name: "foreground_deletions_total",
			Help: "Owners whose foreground deletion completed (their foregroundDeletion finalizer removed)."}),
		queue: workqueue.NewMetrics("garbagecollector"),
	}
	for _, p := range []string{"Background", "Foreground", "Orphan"} {
		m.deletions.WithLabelValues(p)
	}
	return m
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.graph, m.resources, m.deletions, m.orphaned, m.foreground, m.queue}
}

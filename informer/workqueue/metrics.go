package workqueue

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus collectors of one queue: depth, adds, queue
// latency (added until handed out), work duration (handed out until Done)
// and retries (AddRateLimited calls). The owner registers them on its own
// registry (Metrics is a prometheus.Collector); nothing is registered
// globally. A nil *Metrics records nothing. Safe for concurrent use.
type Metrics struct {
	depth    prometheus.Gauge
	adds     prometheus.Counter
	latency  prometheus.Histogram
	duration prometheus.Histogram
	retries  prometheus.Counter
}

var _ prometheus.Collector = (*Metrics)(nil)

// NewMetrics returns the collectors for the queue called name (the "name"
// label of every series, e.g. "deployments").
func NewMetrics(name string) *Metrics {
	labels := prometheus.Labels{"name": name}
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	return &Metrics{
		depth: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "workqueue", Name: "depth",
			Help: "Current depth of the workqueue.", ConstLabels: labels}),
		adds: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "workqueue", Name: "adds_total",
			Help: "Total number of adds handled by the workqueue.", ConstLabels: labels}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "workqueue", Name: "queue_duration_seconds",
			Help: "How long in seconds an item stays in the workqueue before being requested.", ConstLabels: labels, Buckets: buckets}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "workqueue", Name: "work_duration_seconds",
			Help: "How long in seconds processing an item from the workqueue takes.", ConstLabels: labels, Buckets: buckets}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "workqueue", Name: "retries_total",
			Help: "Total number of retries handled by the workqueue.", ConstLabels: labels}),
	}
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
	return []prometheus.Collector{m.depth, m.adds, m.latency, m.duration, m.retries}
}

func (m *Metrics) add(depth int) {
	if m != nil {
		m.adds.Inc()
		m.depth.Set(float64(depth))
	}
}

func (m *Metrics) get(depth int, queued time.Duration) {
	if m != nil {
		m.depth.Set(float64(depth))
		m.latency.Observe(queued.Seconds())
	}
}

func (m *Metrics) done(worked time.Duration) {
	if m != nil {
		m.duration.Observe(worked.Seconds())
	}
}

func (m *Metrics) retry() {
	if m != nil {
		m.retries.Inc()
	}
}

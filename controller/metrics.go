package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/orkit/orkit/informer/workqueue"
)

// Reconcile outcomes, the "result" label of controller_reconcile_total.
const (
	ResultSuccess      = "success"
	ResultError        = "error"
	ResultTerminal     = "terminal_error"
	ResultRequeue      = "requeue"
	ResultRequeueAfter = "requeue_after"
	// ResultConflict: the reconcile's write conflicted with a newer
	// version (409 Conflict); requeued with backoff, not an error.
	ResultConflict = "conflict"
)

// Metrics are one controller's Prometheus collectors: reconciles by
// result, errors, terminal errors, reconcile duration, busy workers, and
// the collectors of its work queue. Every series carries the controller's
// name as a constant label ("controller" here, "name" on the queue's).
// Nothing is registered globally: the owner registers Metrics (a
// prometheus.Collector) on its own registry. Safe for concurrent use.
type Metrics struct {
	total    *prometheus.CounterVec
	errors   prometheus.Counter
	terminal prometheus.Counter
	duration prometheus.Histogram
	active   prometheus.Gauge
	queue    *workqueue.Metrics
}

var _ prometheus.Collector = (*Metrics)(nil)

func newMetrics(name string) *Metrics {
	l := prometheus.Labels{"controller": name}
	m := &Metrics{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "controller", Name: "reconcile_total",
			Help: "Total number of reconciles per controller, by result.", ConstLabels: l}, []string{"result"}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "controller", Name: "reconcile_errors_total",
			Help: "Total number of reconcile errors per controller (terminal ones included).", ConstLabels: l}),
		terminal: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "controller", Name: "terminal_reconcile_errors_total",
			Help: "Total number of terminal (not retried) reconcile errors per controller.", ConstLabels: l}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "controller", Name: "reconcile_time_seconds",
			Help: "Length of time per reconcile per controller.", ConstLabels: l,
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)}),
		active: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "controller", Name: "active_workers",
			Help: "Number of workers currently reconciling per controller.", ConstLabels: l}),
		queue: workqueue.NewMetrics(name),
	}
	for _, r := range []string{ResultSuccess, ResultError, ResultTerminal, ResultRequeue, ResultRequeueAfter, ResultConflict} {
		m.total.WithLabelValues(r) // every series exists from the start
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
	return []prometheus.Collector{m.total, m.errors, m.terminal, m.duration, m.active, m.queue}
}

// observe records one reconcile's outcome and duration.
func (m *Metrics) observe(result string, d time.Duration) {
	m.total.WithLabelValues(result).Inc()
	switch result {
	case ResultError:
		m.errors.Inc()
	case ResultTerminal:
		m.errors.Inc()
		m.terminal.Inc()
	}
	m.duration.Observe(d.Seconds())
}

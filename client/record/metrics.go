package record

import "github.com/prometheus/client_golang/prometheus"

// Reasons an Event is dropped, the "reason" label of
// events_recorder_dropped_total.
const (
	dropInvalid     = "invalid"
	dropRateLimited = "rate_limited"
	dropBufferFull  = "buffer_full"
	dropStopped     = "stopped"
	dropShutdown    = "shutdown"
)

// metrics are a Writer's Prometheus collectors; every series carries the
// Writer's source component as the constant label "component".
type metrics struct {
	sent    *prometheus.CounterVec
	dropped *prometheus.CounterVec
	failed  prometheus.Counter
}

func newMetrics(component string) *metrics {
	l := prometheus.Labels{"component": component}
	m := &metrics{
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "events", Subsystem: "recorder", Name: "sent_total",
			Help: "Events written to the API server, by operation (create a new Event, patch the count of a repeat).", ConstLabels: l},
			[]string{"operation"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "events", Subsystem: "recorder", Name: "dropped_total",
			Help: "Events dropped before they were written, by reason.", ConstLabels: l}, []string{"reason"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "events", Subsystem: "recorder", Name: "failed_total",
			Help: "Events whose write failed after its retries.", ConstLabels: l}),
	}
	m.sent.WithLabelValues("create")
	m.sent.WithLabelValues("patch")
	for _, r := range []string{dropInvalid, dropRateLimited, dropBufferFull, dropStopped, dropShutdown} {
		m.dropped.WithLabelValues(r) // every series exists from the start
	}
	return m
}

var _ prometheus.Collector = (*Writer)(nil)

// Describe implements prometheus.Collector: events_recorder_sent_total
// {operation}, events_recorder_dropped_total{reason} and
// events_recorder_failed_total, labelled with the Writer's component.
// Nothing is registered globally: register the Writer on your registry.
func (w *Writer) Describe(ch chan<- *prometheus.Desc) {
	w.metrics.sent.Describe(ch)
	w.metrics.dropped.Describe(ch)
	w.metrics.failed.Describe(ch)
}

// Collect implements prometheus.Collector.
func (w *Writer) Collect(ch chan<- prometheus.Metric) {
	w.metrics.sent.Collect(ch)
	w.metrics.dropped.Collect(ch)
	w.metrics.failed.Collect(ch)
}

// drop counts one dropped Event.
func (w *Writer) drop(reason string) {
	w.dropped.Add(1)
	w.metrics.dropped.WithLabelValues(reason).Inc()
}

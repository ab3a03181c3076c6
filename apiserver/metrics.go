package apiserver

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// enabledFeatures are the kube-apiserver feature gates whose behaviour the
// server has, with the stage Kubernetes gives them: WatchList is
// sendInitialEvents on watches (beta and on by default since 1.32).
var enabledFeatures = []struct{ name, stage string }{
	{"WatchList", "BETA"},
}

// metrics are the server's Prometheus metrics, in its own registry.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Requests served, by verb, group, resource, subresource and HTTP code.",
		}, []string{"verb", "group", "resource", "subresource", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Request latency, by verb, group, resource and subresource (watches excluded).",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"verb", "group", "resource", "subresource"}),
	}
	// Kubernetes components advertise their feature gates in
	// kubernetes_feature_enabled; orkit lists the gates whose behaviour it
	// implements.
	features := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kubernetes_feature_enabled",
		Help: "This metric records the data about the stage and enablement of a k8s feature.",
	}, []string{"name", "stage"})
	for _, f := range enabledFeatures {
		features.WithLabelValues(f.name, f.stage).Set(1)
	}
	m.registry.MustRegister(m.requests, m.latency, features)
	// As every Kubernetes component does, the process's own figures too
	// (go_memstats_*, go_goroutines, process_resident_memory_bytes,
	// process_cpu_seconds_total): what a scale run reads to see memory and
	// CPU of the process serving the API.
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(info *RequestInfo, code int, d time.Duration) {
	verb := info.Verb
	resource := info.Resource
	if !info.IsResourceRequest {
		resource = ""
	}
	m.requests.WithLabelValues(verb, info.APIGroup, resource, info.Subresource, strconv.Itoa(code)).Inc()
	if verb != "watch" {
		m.latency.WithLabelValues(verb, info.APIGroup, resource, info.Subresource).Observe(d.Seconds())
	}
}

// Package stats holds the kubelet's summary API (stats/v1alpha1, served at
// /stats/summary): the CPU and memory figures of a node and of each of its
// pods and containers, which a metrics server turns into the Metrics API.
// Only the fields orkit fills are carried; they marshal to JSON as the
// kubelet's do. Values are plain data with no internal synchronisation.
package stats

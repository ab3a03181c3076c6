// Package metricsserver is the resource metrics pipeline's server, as
// kubernetes-sigs/metrics-server is: it scrapes every node's kubelet
// summary, turns two consecutive cumulative CPU samples into a rate, and
// serves the Metrics API (metrics.k8s.io/v1beta1 NodeMetrics and
// PodMetrics) over HTTPS to the API server, which proxies
// /apis/metrics.k8s.io/v1beta1 to it through an APIService (API
// aggregation). `kubectl top` and the HorizontalPodAutoscaler read it.
//
//	Run: every Resolution ── list Nodes, Pods ──▶ Scraper.Summary(node) per node
//	       ──▶ rates from the previous sample ──▶ snapshot (atomic swap)
//	Serve: TLS, client certificate of the API server (ClientCA, ClientNames)
//	       ──▶ ServeHTTP: discovery, nodes[/name], [namespaces/ns/]pods[/name], ?labelSelector=
//
// Scraper is the seam to the kubelets: NodeProxy reads
// /api/v1/nodes/<name>/proxy/stats/summary through the API server (which
// reaches the kubelet with its kubelet client certificate); simulated
// nodes' SimPool answers in process; FirstOf tries several in order.
package metricsserver

package podautoscaler

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/metrics"
	"github.com/orkit/orkit/client"
)

// MetricsClient reads the resource metrics of pods. PodMetrics returns
// the metrics of the pods in namespace matching selector (pods without
// metrics are simply absent). Implementations must be safe for
// concurrent use.
type MetricsClient interface {
	Name() string
	PodMetrics(ctx context.Context, namespace string, selector labels.Selector) ([]metrics.PodMetrics, error)
}

// APIMetrics is the MetricsClient that lists metrics.k8s.io/v1beta1
// PodMetrics from the API server (which proxies them to the metrics
// server registered for the group). Safe for concurrent use.
type APIMetrics struct {
	c *client.Client
}

var _ MetricsClient = (*APIMetrics)(nil)

// NewAPIMetrics returns the MetricsClient reading through c.
func NewAPIMetrics(c *client.Client) *APIMetrics { return &APIMetrics{c: c} }

// Name returns "metrics.k8s.io".
func (a *APIMetrics) Name() string { return metrics.GroupName }

var podMetricsMapping = client.Mapping{
	Resource:   metrics.GroupVersion().WithResource("pods"),
	Kind:       metrics.GroupVersion().WithKind("PodMetrics"),
	Namespaced: true,
}

// PodMetrics lists the PodMetrics of namespace matching selector.
func (a *APIMetrics) PodMetrics(ctx context.Context, namespace string, selector labels.Selector) ([]metrics.PodMetrics, error) {
	opts := client.ListOptions{}
	if selector != nil {
		opts.LabelSelector = selector.String()
	}
	list, err := client.DynamicFor(a.c, podMetricsMapping, namespace).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list pod metrics in %q: %w", namespace, err)
	}
	b, err := json.Marshal(list.Items)
	if err != nil {
		return nil, fmt.Errorf("re-encode pod metrics: %w", err)
	}
	var out []metrics.PodMetrics
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode pod metrics: %w", err)
	}
	return out, nil
}

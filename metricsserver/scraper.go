package metricsserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/orkit/orkit/api/stats"
	"github.com/orkit/orkit/client"
)

// Scraper reads one node's kubelet summary. Summary must be safe for
// concurrent use (the server scrapes nodes in parallel).
type Scraper interface {
	Name() string
	Summary(ctx context.Context, node string) (*stats.Summary, error)
}

// NodeProxy scrapes kubelets through the API server's node proxy
// (/api/v1/nodes/<name>/proxy/stats/summary), so it needs no credentials
// of its own for the kubelets: only a client allowed nodes/proxy.
type NodeProxy struct{ c *client.Client }

var _ Scraper = (*NodeProxy)(nil)

// NewNodeProxy returns the Scraper through c's API server.
func NewNodeProxy(c *client.Client) *NodeProxy { return &NodeProxy{c: c} }

// Name returns "nodes/proxy".
func (p *NodeProxy) Name() string { return "nodes/proxy" }

// Summary reads node's summary.
func (p *NodeProxy) Summary(ctx context.Context, node string) (*stats.Summary, error) {
	b, err := p.c.GetRaw(ctx, "/api/v1/nodes/"+url.PathEscape(node)+"/proxy/stats/summary", nil)
	if err != nil {
		return nil, fmt.Errorf("scrape node %q: %w", node, err)
	}
	var s stats.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode summary of node %q: %w", node, err)
	}
	return &s, nil
}

// firstOf tries scrapers in order.
type firstOf []Scraper

// FirstOf returns a Scraper that asks each of scrapers in order and
// returns the first summary one gives (simulated nodes, then real ones).
func FirstOf(scrapers ...Scraper) Scraper { return firstOf(scrapers) }

func (f firstOf) Name() string { return "first-of" }

func (f firstOf) Summary(ctx context.Context, node string) (*stats.Summary, error) {
	var errs []error
	for _, s := range f {
		sum, err := s.Summary(ctx, node)
		if err == nil {
			return sum, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", s.Name(), err))
	}
	return nil, fmt.Errorf("%w %q: %w", ErrNoScraper, node, errors.Join(errs...))
}

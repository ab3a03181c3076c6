package metricsserver

import "errors"

var (
	// ErrInvalidConfig: New was given a Config it cannot use.
	ErrInvalidConfig = errors.New("metricsserver: invalid config")
	// ErrNoScraper: no scraper of a FirstOf could read the node.
	ErrNoScraper = errors.New("metricsserver: no scraper could read the node")
	// ErrNotSynced: Scrape was called before Sync had its caches' first
	// list.
	ErrNotSynced = errors.New("metricsserver: caches not synced; call Sync first")
)

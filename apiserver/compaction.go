package apiserver

import (
	"context"

	"github.com/orkit/orkit/store"
)

// startCompactor runs the store's Compactor (Config.CompactionInterval)
// until ctx ends, telling every watch cache the revision compacted to.
func (s *Server) startCompactor(ctx context.Context) {
	if s.cfg.CompactionInterval < 0 {
		return
	}
	c := store.NewCompactor(s.cfg.Store, store.CompactorConfig{
		Interval:      s.cfg.CompactionInterval,
		BeforeCompact: s.compacting,
		Logger:        s.log,
	})
	go c.Run(ctx)
}

// compacting raises every watch cache's floor to rev before the store
// compacts to it: a watch from a resourceVersion the store no longer has
// gets 410 Expired even while the cache still holds its events, so a
// watch and a list at one resourceVersion agree on whether it has expired.
func (s *Server) compacting(rev int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, r := range s.resources {
		r.cache.setCompacted(rev)
	}
}

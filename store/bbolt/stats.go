package bbolt

// Stats is a snapshot of a Store's counters, for metrics and benchmarks.
type Stats struct {
	// Revision is the last committed revision.
	Revision int64
	// CompactedRevision is the revision history was compacted to.
	CompactedRevision int64
	// Commits counts the write transactions committed (one fsync'd bbolt
	// commit each) since Open.
	Commits int64
	// CommittedWrites counts the writes those transactions carried; divided
	// by Commits it is the mean group-commit batch size.
	CommittedWrites int64
	// Watchers counts live (synced) watchers; watchers still replaying
	// history are not included.
	Watchers int
}

// Stats returns the current counters. It is cheap and safe for concurrent
// use, also after Close.
func (s *Store) Stats() Stats {
	return Stats{
		Revision:          s.rev.Load(),
		CompactedRevision: s.compactRev.Load(),
		Commits:           s.commits.Load(),
		CommittedWrites:   s.committedWrites.Load(),
		Watchers:          s.hub.count(),
	}
}

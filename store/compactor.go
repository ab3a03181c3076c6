package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"
)

// CompactKey is the key through which Compactors sharing a store take
// turns (kube-apiserver's compact_rev_key): its value is the revision last
// compacted to, and its ModRevision is the compactors' logical clock. It
// lies outside the /registry/ tree the API server keeps objects in.
const CompactKey = "/compact_rev_key"

// DefaultCompactionInterval is how often a Compactor compacts when its
// Interval is zero: 5 minutes, kube-apiserver's --etcd-compaction-interval.
const DefaultCompactionInterval = 5 * time.Minute

// CompactorConfig configures a Compactor. Zero values are documented per
// field.
type CompactorConfig struct {
	// Interval is the time between two compactions, and so the history a
	// store keeps: between one and two intervals of revisions (one after a
	// failover between API servers sharing a store, up to three). Zero
	// means DefaultCompactionInterval.
	Interval time.Duration
	// OnCompact, if set, is called after each compaction this Compactor
	// made, with the revision it compacted to (the API server tells its
	// watch caches). It runs on the Compactor's goroutine and must not
	// block long.
	OnCompact func(rev int64)
	// BeforeCompact, if set, is called just before this Compactor
	// compacts the store to rev, on its goroutine. A reader that must not
	// serve revisions the store no longer has raises its floor here (the
	// API server's watch caches do), so no moment exists when the store
	// has compacted but the reader still serves them. When the compaction
	// then fails, the floor is merely early.
	BeforeCompact func(rev int64)
	// Logger receives a line per compaction and per failure; nil discards.
	Logger *slog.Logger
}

// Compactor compacts a store on an interval, as kube-apiserver compacts
// etcd: every interval it compacts to the revision it saw one interval
// earlier, so clients keep at least one interval of history to resume
// watches and paginated lists from; older resourceVersions and continue
// tokens get store.ErrTooOld (410 Expired at the API).
//
// Several Compactors on one store (API servers sharing an etcd) do not
// compact twice per interval: each round is a compare-and-swap on
// CompactKey against the ModRevision the Compactor last saw there. The one
// that wins compacts; the others learn the new ModRevision and the current
// revision, and try again an interval later, so when the winner stops,
// another takes over within two intervals. A single process (bbolt, whose
// file only one process opens) always wins.
//
// Run owns the Compactor's one goroutine; a Compactor is run once.
type Compactor struct {
	store Interface
	cfg   CompactorConfig
	// known is CompactKey's ModRevision as this Compactor last saw it (0:
	// absent); last is the store revision seen at the previous round, the
	// target of the next compaction. Both belong to Run's goroutine.
	known, last int64
	compacted   atomic.Int64
}

// NewCompactor returns a Compactor for s; Run starts it.
func NewCompactor(s Interface, cfg CompactorConfig) *Compactor {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultCompactionInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Compactor{store: s, cfg: cfg}
}

// Run compacts every Interval until ctx ends. The first round, one
// interval after Run starts, only records the revision (there is nothing
// seen an interval before it), as kube-apiserver does. Failures are
// logged and retried at the next round.
func (c *Compactor) Run(ctx context.Context) {
	t := time.NewTicker(c.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := c.Step(ctx); err != nil && ctx.Err() == nil {
			c.cfg.Logger.Warn("store compaction failed", "err", err)
		}
	}
}

// Compacted returns the revision this Compactor last compacted to (0:
// none yet). Safe for concurrent use.
func (c *Compactor) Compacted() int64 { return c.compacted.Load() }

// Step runs one round now: it takes the turn through CompactKey and, if it
// got it, compacts to the revision the previous round saw. Run calls it
// every Interval; tests call it to compact without waiting. Not safe for
// concurrent use with Run or itself.
func (c *Compactor) Step(ctx context.Context) error {
	won, rev, err := c.takeTurn(ctx)
	if err != nil || !won {
		return err
	}
	target := c.last
	c.last = rev
	if target <= 0 {
		return nil // the first round: nothing was seen an interval ago
	}
	if c.cfg.BeforeCompact != nil {
		c.cfg.BeforeCompact(target)
	}
	if err := c.store.Compact(ctx, target); err != nil {
		return fmt.Errorf("compact to revision %d: %w", target, err)
	}
	c.compacted.Store(target)
	c.cfg.Logger.Info("store compacted", "revision", target)
	if c.cfg.OnCompact != nil {
		c.cfg.OnCompact(target)
	}
	return nil
}

// takeTurn writes CompactKey if its ModRevision is still the one this
// Compactor knows. won reports whether it did; rev is the store's revision
// then (the write's own, or the current one when another Compactor had
// moved the key: its round counts for this interval).
func (c *Compactor) takeTurn(ctx context.Context) (won bool, rev int64, err error) {
	value := []byte(strconv.FormatInt(c.last, 10))
	if c.known == 0 {
		rev, err = c.store.Create(ctx, CompactKey, value)
	} else {
		rev, err = c.store.Update(ctx, CompactKey, value, c.known)
	}
	switch {
	case err == nil:
		c.known = rev
		return true, rev, nil
	case errors.Is(err, ErrAlreadyExists), errors.Is(err, ErrConflict), errors.Is(err, ErrNotFound):
		return false, 0, c.learn(ctx)
	}
	return false, 0, fmt.Errorf("take the compaction turn: %w", err)
}

// learn reads CompactKey after another Compactor moved it: its
// ModRevision becomes the one to compare with, and the current revision
// the target of the next round.
func (c *Compactor) learn(ctx context.Context) error {
	kv, err := c.store.Get(ctx, CompactKey)
	switch {
	case errors.Is(err, ErrNotFound):
		c.known = 0
	case err != nil:
		return fmt.Errorf("read %s: %w", CompactKey, err)
	default:
		c.known = kv.ModRevision
	}
	rev, err := c.store.Revision(ctx)
	if err != nil {
		return fmt.Errorf("read the current revision: %w", err)
	}
	c.last = rev
	return nil
}

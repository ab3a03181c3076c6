package daemonset

import (
	"sync"
	"time"

	"github.com/orkit/orkit/api/meta"
)

// Bounds of the delay between replacements of a failing daemon pod on
// one node.
const (
	failedBackoffBase = time.Second
	failedBackoffMax  = 5 * time.Minute
)

// failedBackoff paces the replacement of failed daemon pods per
// DaemonSet and node, so that a pod that fails at once is not recreated
// in a tight loop: the first replacement is immediate, then the delay
// doubles from 1 s to 5 min; an entry older than the maximum is
// forgotten. Safe for concurrent use.
type failedBackoff struct {
	mu      sync.Mutex
	entries map[failedKey]failedEntry
}

type failedKey struct {
	ds   meta.UID
	node string
}

type failedEntry struct {
	delay time.Duration
	until time.Time
}

func newFailedBackoff() *failedBackoff { return &failedBackoff{entries: map[failedKey]failedEntry{}} }

// next returns how long to wait before replacing the failed pod of ds on
// node; zero means now, and records the replacement.
func (b *failedBackoff) next(ds meta.UID, node string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := failedKey{ds, node}
	e, ok := b.entries[k]
	if ok && now.Before(e.until) {
		return e.until.Sub(now)
	}
	switch {
	case !ok || now.Sub(e.until) > failedBackoffMax:
		e.delay = failedBackoffBase
	default:
		e.delay = min(e.delay*2, failedBackoffMax)
	}
	e.until = now.Add(e.delay)
	b.entries[k] = e
	b.gc(now)
	return 0
}

// gc drops entries whose backoff ended long ago.
func (b *failedBackoff) gc(now time.Time) {
	for k, e := range b.entries {
		if now.Sub(e.until) > 2*failedBackoffMax {
			delete(b.entries, k)
		}
	}
}

package store

import "context"

// MaxValueSize is the largest value a store accepts (1.5 MiB, as etcd's
// default request limit).
const MaxValueSize = 3 << 19

// KV is a key, its value and its revisions.
type KV struct {
	Key   string
	Value []byte
	// CreateRevision is the revision at which the key was created.
	CreateRevision int64
	// ModRevision is the revision of the key's last write; it is what
	// Update and Delete compare against.
	ModRevision int64
}

// EventType says what happened to a key.
type EventType int

// Event types.
const (
	EventPut EventType = iota + 1
	EventDelete
	// EventProgress carries no key: it tells the watcher that it has seen
	// every event under its prefix up to Revision (writes elsewhere moved
	// the store on). Backends send it when they can do so cheaply and may
	// drop it for a watcher whose buffer is full; watchers that do not
	// need it skip it.
	EventProgress
)

// Event is one change seen by a watcher. Revision is the revision of the
// write. For EventPut, KV is the new value and Prev the previous one (nil on
// create). For EventDelete, KV holds the key with a nil value and Prev the
// deleted value.
//
// An Event with Err set is the last one a watcher receives: the watch ended
// because it fell behind (ErrWatcherTooSlow), history it still had to replay
// was compacted (ErrTooOld), or the store closed (ErrClosed).
type Event struct {
	Type     EventType
	KV       KV
	Prev     *KV
	Revision int64
	Err      error
}

// ListOptions shapes a List.
type ListOptions struct {
	// Limit caps the number of keys returned; 0 means no limit.
	Limit int
	// Continue resumes a paginated list from a previous ListResult.Continue.
	// A continued list reads at the revision of the first page.
	Continue string
	// Revision reads at that past revision; 0 means the current one.
	Revision int64
}

// ListResult is one page of a List.
type ListResult struct {
	KVs []KV
	// Revision is the revision the list was read at.
	Revision int64
	// Continue is non-empty when more keys remain.
	Continue string
	// Remaining counts the keys after this page.
	Remaining int64
}

// Interface is a revisioned key-value store with watch. Every method is
// safe for concurrent use. Keys are slash-separated paths ("/pods/ns/name").
//
// Writes are durable when they return. Every successful write increments
// the store's single revision by one and returns it.
type Interface interface {
	// Get returns the current value of key, or ErrNotFound.
	Get(ctx context.Context, key string) (KV, error)
	// List returns the keys under prefix in key order, read at one
	// consistent revision.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Create writes a new key; ErrAlreadyExists if it exists.
	Create(ctx context.Context, key string, value []byte) (rev int64, err error)
	// Update replaces the value of key if its ModRevision equals
	// expectedRev, else ErrConflict (ErrNotFound if it does not exist).
	Update(ctx context.Context, key string, value []byte, expectedRev int64) (rev int64, err error)
	// Delete removes key if its ModRevision equals expectedRev (0 means
	// any), returning the deleted value.
	Delete(ctx context.Context, key string, expectedRev int64) (prev KV, rev int64, err error)
	// Watch delivers, in revision order, every event under prefix with a
	// revision greater than rev (rev 0: from the current revision on). It
	// fails with ErrTooOld if rev is older than the compacted revision. The
	// channel is closed when ctx is done or after an Event with Err.
	Watch(ctx context.Context, prefix string, rev int64) (<-chan Event, error)
	// Revision returns the current revision.
	Revision(ctx context.Context) (int64, error)
	// Compact discards the history older than rev: afterwards a List at a
	// revision below rev, or a Watch from a revision below rev, fails with
	// ErrTooOld. Current values are never discarded.
	Compact(ctx context.Context, rev int64) error
	// Close releases the store; pending watches end.
	Close() error
}

package bbolt

import (
	"io"
	"log/slog"
	"os"
	"time"
)

// Config tunes a Store. The zero value (and a nil *Config passed to Open)
// selects the documented defaults. Config is read once by Open; changing
// them afterwards has no effect.
type Config struct {
	// LockTimeout is how long Open waits for the file lock that keeps two
	// stores (in any processes) from opening one file. Zero means 5s.
	LockTimeout time.Duration
	// FileMode is the permission of a newly created file. Zero means 0600.
	FileMode os.FileMode
	// WatchBuffer is how many undelivered events a live watcher may hold,
	// beyond the 16 its channel holds, before it is ended with
	// store.ErrWatcherTooSlow. Zero means 1024.
	WatchBuffer int
	// ProgressInterval is the least time between two wake-ups of a live
	// watcher for store.EventProgress alone (progress that rides along with
	// events costs nothing). Zero means 100ms; negative disables progress
	// events.
	ProgressInterval time.Duration
	// MaxBatchOps caps the writes committed in one transaction. Zero means
	// 1024.
	MaxBatchOps int
	// MaxBatchBytes caps the value bytes committed in one transaction (a
	// single larger write still commits alone). Zero means 32 MiB.
	MaxBatchBytes int
	// InitialMmapSize is the initial memory map size in bytes; while the
	// file stays below it, long reads never delay a commit that grows the
	// file. Zero means 256 MiB (address space, not memory).
	InitialMmapSize int
	// SkipVerify skips the full page-level consistency check Open runs on an
	// existing file (it reads every page once; about 0.1 s per 100 MB).
	// Header and schema checks always run.
	SkipVerify bool
	// Logger receives operational messages (open, compaction, dropped
	// watchers). Nil discards them.
	Logger *slog.Logger
}

// withDefaults returns a copy of o with zero fields filled in.
func (o *Config) withDefaults() Config {
	var r Config
	if o != nil {
		r = *o
	}
	if r.LockTimeout <= 0 {
		r.LockTimeout = 5 * time.Second
	}
	if r.FileMode == 0 {
		r.FileMode = 0o600
	}
	if r.WatchBuffer <= 0 {
		r.WatchBuffer = 1024
	}
	if r.ProgressInterval == 0 {
		r.ProgressInterval = 100 * time.Millisecond
	}
	if r.MaxBatchOps <= 0 {
		r.MaxBatchOps = 1024
	}
	if r.MaxBatchBytes <= 0 {
		r.MaxBatchBytes = 32 << 20
	}
	if r.InitialMmapSize <= 0 {
		r.InitialMmapSize = 256 << 20
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return r
}

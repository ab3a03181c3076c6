package etcd

import (
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/orkit/orkit/store"
)

// Config says which etcd cluster a Store uses and how. The zero value of
// every field but Endpoints selects the documented default. New reads it
// once; changing it afterwards has no effect.
type Config struct {
	// Endpoints are the client URLs of the cluster's members
	// ("http://10.0.0.1:2379", "https://etcd-0.example:2379"). At least one
	// is required; requests are balanced over all of them and move to
	// another when one fails.
	Endpoints []string
	// TLS is the client's TLS configuration (CA pool, client certificate)
	// for https:// endpoints. Nil means plain connections.
	TLS *tls.Config
	// Username and Password authenticate to a cluster with etcd's
	// authentication enabled. Empty means none.
	Username, Password string
	// DialTimeout bounds how long New waits for the cluster to answer a
	// first request. Zero means 5s.
	DialTimeout time.Duration
	// Prefix is put before every key in etcd, so several orkit clusters
	// (or other users) can share one etcd: with Prefix "/tenant-a" the
	// store key "/registry/pods/ns/p" is the etcd key
	// "/tenant-a/registry/pods/ns/p". It is "" (keys as they are; orkit's
	// keys already start with "/registry/") or a valid store key (starting
	// with "/", no trailing "/", at most store.MaxKeySize bytes). Every
	// Store sharing data must use the same Prefix.
	Prefix string
	// WatchBuffer is how many undelivered live events a watcher may hold
	// before it is ended with store.ErrWatcherTooSlow (history replayed
	// for a watch from a past revision does not count). Zero means 1024.
	WatchBuffer int
	// ProgressInterval is how often the Store, while it has watches, asks
	// etcd for their progress (RequestProgress), so a watch whose prefix
	// sees no writes still learns how far the cluster's revision has moved
	// (store.EventProgress) within about this time; etcd answers only when
	// all the Store's watches are caught up. Zero means 100ms, as
	// store/bbolt; negative leaves only etcd's own notifications (every
	// --watch-progress-notify-interval, 10 minutes by default).
	ProgressInterval time.Duration
	// Logger receives operational messages (watches resumed on another
	// member, watchers dropped). Nil discards them.
	Logger *slog.Logger
}

// withDefaults returns a checked copy of c with zero fields filled in; the
// error wraps ErrInvalidConfig.
func (c Config) withDefaults() (Config, error) {
	if len(c.Endpoints) == 0 {
		return c, fmt.Errorf("no endpoints: %w", ErrInvalidConfig)
	}
	for _, ep := range c.Endpoints {
		if strings.TrimSpace(ep) == "" {
			return c, fmt.Errorf("empty endpoint in %q: %w", c.Endpoints, ErrInvalidConfig)
		}
	}
	if c.Prefix != "" {
		if err := store.ValidateKey(c.Prefix); err != nil {
			return c, fmt.Errorf("prefix: %v: %w", err, ErrInvalidConfig)
		}
	}
	c.Endpoints = append([]string(nil), c.Endpoints...)
	if c.DialTimeout <= 0 {
		c.DialTimeout = 5 * time.Second
	}
	if c.WatchBuffer <= 0 {
		c.WatchBuffer = 1024
	}
	if c.ProgressInterval == 0 {
		c.ProgressInterval = 100 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c, nil
}

package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orkit/orkit/store"
)

// Store is store.Interface on an etcd v3 cluster. Every method is safe for
// concurrent use; the Store owns one etcd client (a gRPC connection
// balanced over Config.Endpoints) and one goroutine per open watch, all
// released by Close. Several Stores, in one process or many, may share a
// cluster and Prefix: they see one history and one revision.
type Store struct {
	cfg Config
	cli *clientv3.Client
	log *slog.Logger

	// life ends when Close begins; watch goroutines stop with it.
	life     context.Context
	end      context.CancelFunc
	mu       sync.Mutex
	closed   bool
	watchers sync.WaitGroup // watch goroutines and the progress loop
	watching atomic.Int64   // open watches
}

var _ store.Interface = (*Store)(nil)

// New connects to the etcd cluster cfg names and checks that it answers
// (within ctx and cfg.DialTimeout). ctx bounds only New: the Store lives
// until Close. Errors: ErrInvalidConfig for a bad cfg, else the etcd or
// connection error.
func New(ctx context.Context, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.Endpoints,
		TLS:                  cfg.TLS,
		Username:             cfg.Username,
		Password:             cfg.Password,
		DialTimeout:          cfg.DialTimeout,
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd at %v: %w", cfg.Endpoints, err)
	}
	life, end := context.WithCancel(context.Background())
	s := &Store{cfg: cfg, cli: cli, log: cfg.Logger, life: life, end: end}
	pctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	if _, err := s.probe(pctx, 0); err != nil {
		end()
		_ = cli.Close()
		return nil, fmt.Errorf("etcd at %v: %w", cfg.Endpoints, err)
	}
	if cfg.ProgressInterval > 0 {
		s.watchers.Add(1)
		go s.progressLoop()
	}
	return s, nil
}

// progressLoop is the Store's goroutine that asks etcd for watch progress
// every Config.ProgressInterval while watches are open; it ends with Close.
func (s *Store) progressLoop() {
	defer s.watchers.Done()
	t := time.NewTicker(s.cfg.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-s.life.Done():
			return
		case <-t.C:
		}
		if s.watching.Load() == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(s.life), s.cfg.ProgressInterval)
		_ = s.cli.RequestProgress(ctx) // best effort: the next tick asks again
		cancel()
	}
}

// Close releases the client; pending watches end (with a final
// store.ErrClosed event when their consumer is ready for it), later calls
// fail with store.ErrClosed. A second Close is a no-op.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.end()
	s.watchers.Wait()
	if err := s.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("close etcd client: %w", err)
	}
	return nil
}

// isClosed reports whether Close has begun.
func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// ready fails fast for a closed Store or a done ctx.
func (s *Store) ready(ctx context.Context) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// Get returns the current value of key (a linearizable read: it sees every
// write acknowledged before it started), or store.ErrNotFound.
// store.ErrInvalidKey for a malformed key, store.ErrClosed after Close.
func (s *Store) Get(ctx context.Context, key string) (store.KV, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.KV{}, err
	}
	if err := s.ready(ctx); err != nil {
		return store.KV{}, err
	}
	resp, err := s.cli.Get(ctx, s.etcdKey(key))
	if err != nil {
		return store.KV{}, s.fail(fmt.Sprintf("get %q", key), err)
	}
	if len(resp.Kvs) == 0 {
		return store.KV{}, fmt.Errorf("get %q: %w", key, store.ErrNotFound)
	}
	return s.kv(resp.Kvs[0]), nil
}

// Revision returns the cluster's current revision (linearizable).
func (s *Store) Revision(ctx context.Context) (int64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	cur, err := s.probe(ctx, 0)
	return toStore(cur), err
}

// Compact discards etcd's history before rev (etcd compaction, applied
// through raft: once Compact returns, Lists below rev and Watches from
// below rev fail with store.ErrTooOld on every member). etcd keeps one
// history for its whole keyspace, so this compacts every Prefix sharing
// the cluster. Compacting to a revision at or below the compacted one is a
// no-op; above the current one it is store.ErrFutureRevision.
func (s *Store) Compact(ctx context.Context, rev int64) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	if rev <= 0 {
		return nil
	}
	_, err := s.cli.Compact(ctx, toEtcd(rev))
	switch {
	case err == nil, errors.Is(err, rpctypes.ErrCompacted):
		return nil
	default:
		return s.fail(fmt.Sprintf("compact to revision %d", rev), err)
	}
}

// RequestProgress asks etcd to tell every watch of this Store how far it
// has got: each receives a store.EventProgress at the cluster's revision
// once it has delivered every event up to it (etcd answers only when all
// the Store's watches are caught up). Progress is advisory; see
// store.EventProgress.
func (s *Store) RequestProgress(ctx context.Context) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	if err := s.cli.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		return s.fail("request watch progress", err)
	}
	return nil
}

// probe reads the cluster's current etcd revision with a linearizable
// count-only request; with rev > 0 it reads at rev, so it also fails with
// store.ErrTooOld or store.ErrFutureRevision when rev is compacted or not
// written yet.
func (s *Store) probe(ctx context.Context, rev int64) (int64, error) {
	opts := []clientv3.OpOption{clientv3.WithCountOnly()}
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(toEtcd(rev)))
	}
	resp, err := s.cli.Get(ctx, s.cfg.Prefix+"/", opts...)
	if err != nil {
		return 0, s.fail(fmt.Sprintf("read at revision %d", rev), err)
	}
	return resp.Header.Revision, nil
}

// fail wraps an etcd error from op with the store sentinel it means:
// store.ErrClosed once Close has begun, store.ErrTooOld for a compacted
// revision, store.ErrFutureRevision, store.ErrTooLarge for a request etcd
// refuses as too large (its --max-request-bytes is below what store.
// MaxValueSize needs). Context errors stay as they are.
func (s *Store) fail(op string, err error) error {
	switch {
	case s.isClosed():
		return fmt.Errorf("%s: %w", op, store.ErrClosed)
	case errors.Is(err, rpctypes.ErrCompacted):
		return fmt.Errorf("%s: %w (etcd: %w)", op, store.ErrTooOld, err)
	case errors.Is(err, rpctypes.ErrFutureRev):
		return fmt.Errorf("%s: %w (etcd: %w)", op, store.ErrFutureRevision, err)
	case errors.Is(err, rpctypes.ErrRequestTooLarge):
		return fmt.Errorf("%s: %w: etcd refused the request as too large (run etcd with --max-request-bytes of at least %d): %w",
			op, store.ErrTooLarge, MinMaxRequestBytes, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// MinMaxRequestBytes is the least --max-request-bytes an etcd server needs
// for the largest write a Store makes: a store.MaxValueSize value under a
// store.MaxKeySize key (plus Prefix) in a compare-and-put transaction.
// etcd's default, 1.5 MiB, is just too small; 2 MiB is a round choice.
const MinMaxRequestBytes = store.MaxValueSize + 16<<10

// Revisions. Store revisions are etcd's own (an object's resourceVersion
// is its etcd mod_revision, as in Kubernetes). etcd numbers its empty
// keyspace revision 1, so the first write is revision 2, where store/bbolt
// starts at 1; the store contract does not fix where revisions start.
// revShift is kept as the one place that maps between the two numberings.
const revShift = 0

// toStore maps an etcd revision to a store revision; 0 (none) stays 0.
func toStore(rev int64) int64 {
	if rev == 0 {
		return 0
	}
	return rev - revShift
}

// toEtcd maps a store revision to etcd's.
func toEtcd(rev int64) int64 { return rev + revShift }

// etcdKey is key's name in etcd.
func (s *Store) etcdKey(key string) string { return s.cfg.Prefix + key }

// rangeOf returns the etcd key range [start, end) holding the store keys
// under prefix. Every store key starts with "/", so the empty prefix is
// "/": keys of other etcd users outside it never show.
func (s *Store) rangeOf(prefix string) (start, end string) {
	if prefix == "" {
		prefix = "/"
	}
	start = s.cfg.Prefix + prefix
	return start, clientv3.GetPrefixRangeEnd(start)
}

// kv converts an etcd key-value (under Prefix) to a store.KV. The value is
// the response's own copy.
func (s *Store) kv(kv *mvccpb.KeyValue) store.KV {
	return store.KV{
		Key:            string(kv.Key[len(s.cfg.Prefix):]),
		Value:          kv.Value,
		CreateRevision: toStore(kv.CreateRevision),
		ModRevision:    toStore(kv.ModRevision),
	}
}

package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orkit/orkit/store"
)

// List returns the keys under prefix in key order, read at one revision:
// opts.Revision, or the current revision (a linearizable read). A page cut
// by opts.Limit carries a Continue token holding that revision and the
// last key; continuing reads the next keys at the same revision (etcd's
// multi-version store keeps it until compacted), so writes between pages
// never show. Remaining is etcd's count of the keys after the page.
//
// Errors: store.ErrInvalidKey for a bad prefix, store.ErrInvalidContinue
// for a damaged token, one from another prefix or one whose revision
// disagrees with opts.Revision, store.ErrTooOld when the revision (of the
// token too) has been compacted, store.ErrFutureRevision above the current
// revision, store.ErrClosed after Close.
func (s *Store) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.ListResult{}, err
	}
	if err := s.ready(ctx); err != nil {
		return store.ListResult{}, err
	}
	rev := opts.Revision
	start, end := s.rangeOf(prefix)
	if opts.Continue != "" {
		tok, err := store.DecodeContinue(opts.Continue, prefix)
		if err != nil {
			return store.ListResult{}, err
		}
		if rev != 0 && rev != tok.Revision {
			return store.ListResult{}, fmt.Errorf("continue token is for revision %d, options ask %d: %w",
				tok.Revision, rev, store.ErrInvalidContinue)
		}
		rev, start = tok.Revision, s.etcdKey(tok.After)+"\x00"
	}
	if rev < 0 {
		return store.ListResult{}, fmt.Errorf("list at revision %d: %w", rev, store.ErrTooOld)
	}
	ops := []clientv3.OpOption{clientv3.WithRange(end)}
	if rev > 0 {
		ops = append(ops, clientv3.WithRev(toEtcd(rev)))
	}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(int64(opts.Limit)))
	}
	resp, err := s.cli.Get(ctx, start, ops...)
	if err != nil {
		return store.ListResult{}, s.fail(fmt.Sprintf("list %q at revision %d", prefix, rev), err)
	}
	if rev == 0 {
		rev = toStore(resp.Header.Revision) // the revision the read was at
	}
	res := store.ListResult{Revision: rev, KVs: make([]store.KV, len(resp.Kvs))}
	for i, kv := range resp.Kvs {
		res.KVs[i] = s.kv(kv)
	}
	res.Remaining = resp.Count - int64(len(resp.Kvs))
	if resp.More && len(res.KVs) > 0 {
		last := res.KVs[len(res.KVs)-1].Key
		res.Continue = store.ContinueToken{Revision: rev, After: last}.Encode()
	}
	return res, nil
}

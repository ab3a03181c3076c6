package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orkit/orkit/store"
)

// Create writes a new key in one etcd transaction that puts only if the
// key's CreateRevision is 0 (absent). It returns store.ErrAlreadyExists if
// the key is present, store.ErrInvalidKey or store.ErrTooLarge for bad
// input (nothing is sent), store.ErrClosed after Close. The returned
// revision is committed by a quorum of members (each fsynced its log) when
// Create returns.
//
// As with any etcd request, a write whose ctx ends while it is in flight
// returns ctx's error and may or may not have been applied; a Get tells.
// Writes are not retried by the Store: a retry of an applied Create would
// report ErrAlreadyExists for the caller's own write.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := s.checkWrite(ctx, key, value); err != nil {
		return 0, err
	}
	k := s.etcdKey(key)
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(value))).
		Commit()
	if err != nil {
		return 0, s.fail(fmt.Sprintf("create %q", key), err)
	}
	if !resp.Succeeded {
		return 0, fmt.Errorf("create %q: %w", key, store.ErrAlreadyExists)
	}
	return toStore(resp.Header.Revision), nil
}

// Update replaces key's value in one transaction that puts only if the
// key exists and its ModRevision equals expectedRev: store.ErrConflict
// otherwise (expectedRev 0 never matches), store.ErrNotFound if the key is
// absent. Input errors, durability and ctx as for Create.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRev int64) (int64, error) {
	if err := s.checkWrite(ctx, key, value); err != nil {
		return 0, err
	}
	k := s.etcdKey(key)
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), ">", 0),
			clientv3.Compare(clientv3.ModRevision(k), "=", toEtcd(expectedRev))).
		Then(clientv3.OpPut(k, string(value))).
		Else(clientv3.OpGet(k, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, s.fail(fmt.Sprintf("update %q", key), err)
	}
	if !resp.Succeeded {
		return 0, s.refused("update", key, expectedRev, resp)
	}
	return toStore(resp.Header.Revision), nil
}

// Delete removes key in one transaction that deletes only if the key
// exists and, unless expectedRev is 0, its ModRevision equals expectedRev.
// It returns the deleted KV and the delete's revision; errors as for
// Update.
func (s *Store) Delete(ctx context.Context, key string, expectedRev int64) (store.KV, int64, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.KV{}, 0, err
	}
	if err := s.ready(ctx); err != nil {
		return store.KV{}, 0, err
	}
	k := s.etcdKey(key)
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(k), ">", 0)}
	if expectedRev != 0 {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", toEtcd(expectedRev)))
	}
	resp, err := s.cli.Txn(ctx).
		If(cmps...).
		Then(clientv3.OpDelete(k, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(k, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return store.KV{}, 0, s.fail(fmt.Sprintf("delete %q", key), err)
	}
	if !resp.Succeeded {
		return store.KV{}, 0, s.refused("delete", key, expectedRev, resp)
	}
	del := resp.Responses[0].GetResponseDeleteRange()
	if del == nil || len(del.PrevKvs) != 1 {
		return store.KV{}, 0, fmt.Errorf("delete %q: etcd returned no deleted value", key)
	}
	return s.kv(del.PrevKvs[0]), toStore(resp.Header.Revision), nil
}

// checkWrite validates a Create or Update before anything is sent.
func (s *Store) checkWrite(ctx context.Context, key string, value []byte) error {
	if err := store.ValidateKey(key); err != nil {
		return err
	}
	if err := store.ValidateValue(key, value); err != nil {
		return err
	}
	return s.ready(ctx)
}

// refused explains a transaction whose compare failed, from its Else
// branch's read of the key: store.ErrNotFound when absent, else
// store.ErrConflict with the key's actual ModRevision.
func (s *Store) refused(op, key string, expectedRev int64, resp *clientv3.TxnResponse) error {
	var got *clientv3.GetResponse
	if len(resp.Responses) == 1 {
		got = (*clientv3.GetResponse)(resp.Responses[0].GetResponseRange())
	}
	if got == nil || len(got.Kvs) == 0 {
		return fmt.Errorf("%s %q: %w", op, key, store.ErrNotFound)
	}
	return fmt.Errorf("%s %q: revision is %d, expected %d: %w",
		op, key, toStore(got.Kvs[0].ModRevision), expectedRev, store.ErrConflict)
}

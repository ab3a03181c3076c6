package bbolt

import (
	"context"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
)

// List returns the keys under prefix in key order, read at one revision:
// opts.Revision, the revision of the first page when opts.Continue is set,
// or the current one. A past revision is rebuilt from history:
// store.ErrTooOld below the compacted revision, store.ErrFutureRevision
// above the current one. A malformed continue token, or one from another
// prefix, or one whose revision disagrees with opts.Revision, fails with
// store.ErrInvalidContinue; a bad prefix with store.ErrInvalidKey. A Limit
// of zero or less means no limit. Values are copies the caller owns.
//
// Reading at the current revision costs one ordered scan; reading at a past
// revision R also scans every history record after R.
func (s *Store) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.ListResult{}, err
	}
	rev, after := opts.Revision, ""
	if opts.Continue != "" {
		tok, err := store.DecodeContinue(opts.Continue, prefix)
		if err != nil {
			return store.ListResult{}, err
		}
		if rev != 0 && rev != tok.Revision {
			return store.ListResult{}, fmt.Errorf("continue token is for revision %d, options ask %d: %w",
				tok.Revision, rev, store.ErrInvalidContinue)
		}
		rev, after = tok.Revision, tok.After
	}
	if rev < 0 {
		return store.ListResult{}, fmt.Errorf("list at revision %d: %w", rev, store.ErrTooOld)
	}
	if err := ctx.Err(); err != nil {
		return store.ListResult{}, err
	}
	if s.isClosed() {
		return store.ListResult{}, store.ErrClosed
	}
	var res store.ListResult
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		res, err = listTx(tx, prefix, after, rev, opts.Limit)
		return err
	})
	return res, err
}

// page accumulates one List page. To keep a 100,000-key list cheap it
// copies keys and values out of bbolt into shared arenas instead of one
// allocation each: values are capacity-limited sub-slices of 64 KiB chunks
// (so appending to one never touches another), keys substrings of one
// string per chunk of keys.
type page struct {
	prefix string
	limit  int
	res    store.ListResult

	keyBuf   []byte // key bytes of KVs[keyStart:], not yet strings
	keyEnds  []int
	keyStart int
	valBuf   []byte
}

const arenaChunk = 64 << 10

// add appends a KV copied from bbolt memory, or counts it as remaining once
// the page is full.
func (p *page) add(key, value []byte, createRev, modRev int64) {
	if p.full() {
		p.res.Remaining++
		return
	}
	if p.res.KVs == nil {
		p.res.KVs = make([]store.KV, 0, min(max(p.limit, 0), 1023)+1)
	}
	if p.valBuf == nil || cap(p.valBuf)-len(p.valBuf) < len(value) {
		p.valBuf = make([]byte, 0, max(arenaChunk, len(value)))
	}
	start := len(p.valBuf)
	p.valBuf = append(p.valBuf, value...)
	p.res.KVs = append(p.res.KVs, store.KV{
		Value:          p.valBuf[start:len(p.valBuf):len(p.valBuf)],
		CreateRevision: createRev,
		ModRevision:    modRev,
	})
	p.keyBuf = append(p.keyBuf, key...)
	p.keyEnds = append(p.keyEnds, len(p.keyBuf))
	if len(p.keyBuf) >= arenaChunk {
		p.flushKeys()
	}
}

// flushKeys turns the pending key bytes into one string and gives each
// pending KV its substring.
func (p *page) flushKeys() {
	all := string(p.keyBuf)
	from := 0
	for i, end := range p.keyEnds {
		p.res.KVs[p.keyStart+i].Key = all[from:end]
		from = end
	}
	p.keyStart += len(p.keyEnds)
	p.keyBuf, p.keyEnds = p.keyBuf[:0], p.keyEnds[:0]
}

// full reports whether further keys only count as remaining.
func (p *page) full() bool { return p.limit > 0 && len(p.res.KVs) >= p.limit }

func (p *page) finish() store.ListResult {
	p.flushKeys()
	if p.res.Remaining > 0 && len(p.res.KVs) > 0 {
		last := p.res.KVs[len(p.res.KVs)-1].Key
		p.res.Continue = store.ContinueToken{Revision: p.res.Revision, After: last}.Encode()
	}
	return p.res
}

// listTx reads one page at rev (0: current) in tx.
func listTx(tx *bolt.Tx, prefix, after string, rev int64, limit int) (store.ListResult, error) {
	meta := tx.Bucket(bucketMeta)
	cur, err := readU64(meta.Get(metaRev), "rev")
	if err != nil {
		return store.ListResult{}, err
	}
	compact, err := readU64(meta.Get(metaCompact), "compact")
	if err != nil {
		return store.ListResult{}, err
	}
	switch {
	case rev == 0:
		rev = cur
	case rev > cur:
		return store.ListResult{}, fmt.Errorf("list at revision %d, current is %d: %w", rev, cur, store.ErrFutureRevision)
	case rev < compact:
		return store.ListResult{}, fmt.Errorf("list at revision %d, compacted at %d: %w", rev, compact, store.ErrTooOld)
	}
	p := &page{prefix: prefix, limit: limit, res: store.ListResult{Revision: rev}}
	if rev == cur {
		err = listCurrent(tx, p, after)
	} else {
		err = listPast(tx, p, after, rev)
	}
	if err != nil {
		return store.ListResult{}, err
	}
	return p.finish(), nil
}

// seekStart is where a scan for keys under prefix after "after" begins.
func seekStart(prefix, after string) []byte {
	if after != "" {
		return append([]byte(after), 0)
	}
	return []byte(prefix)
}

// listCurrent scans the current keys.
func listCurrent(tx *bolt.Tx, p *page, after string) error {
	c := tx.Bucket(bucketKeys).Cursor()
	for k, v := c.Seek(seekStart(p.prefix, after)); k != nil && keyHasPrefix(k, p.prefix); k, v = c.Next() {
		if p.full() {
			p.res.Remaining++
			continue
		}
		cur, err := decodeCurrent(k, v)
		if err != nil {
			return err
		}
		p.add(k, cur.value, cur.createRev, cur.modRev)
	}
	return nil
}

// pastState is a key's state at a past revision, learnt from the first
// history record after it: absent (created later) or the version at modRev.
type pastState struct {
	exists            bool
	createRev, modRev int64
}

// listPast rebuilds the page at rev: keys not written since rev read as
// they are now; for the others the first record after rev names the
// version that was current at rev (its previous modification).
func listPast(tx *bolt.Tx, p *page, after string, rev int64) error {
	hist := tx.Bucket(bucketHistory)
	changed, err := changesSince(hist, p.prefix, after, rev)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(changed))
	for k := range changed {
		names = append(names, k)
	}
	slices.Sort(names)
	c := tx.Bucket(bucketKeys).Cursor()
	k, v := c.Seek(seekStart(p.prefix, after))
	for {
		if k != nil && !keyHasPrefix(k, p.prefix) {
			k = nil
		}
		if k == nil && len(names) == 0 {
			return nil
		}
		// Take the smaller of the next current key and the next changed key.
		if len(names) > 0 && (k == nil || names[0] <= string(k)) {
			name := names[0]
			names = names[1:]
			if k != nil && name == string(k) {
				k, v = c.Next()
			}
			if err := addPast(hist, p, name, changed[name]); err != nil {
				return err
			}
			continue
		}
		if p.full() {
			p.res.Remaining++
		} else {
			cur, err := decodeCurrent(k, v)
			if err != nil {
				return err
			}
			p.add(k, cur.value, cur.createRev, cur.modRev)
		}
		k, v = c.Next()
	}
}

// changesSince maps every key under prefix after "after" written after rev
// to its state at rev.
func changesSince(hist *bolt.Bucket, prefix, after string, rev int64) (map[string]pastState, error) {
	changed := map[string]pastState{}
	c := hist.Cursor()
	for k, v := c.Seek(u64(rev + 1)); k != nil; k, v = c.Next() {
		r, err := revOf(k)
		if err != nil {
			return nil, err
		}
		rec, err := decodeRecord(r, v)
		if err != nil {
			return nil, err
		}
		if !keyHasPrefix(rec.key, prefix) || string(rec.key) <= after {
			continue
		}
		if _, seen := changed[string(rec.key)]; seen {
			continue
		}
		changed[string(rec.key)] = pastState{exists: rec.prevModRev != 0, createRev: rec.createRev, modRev: rec.prevModRev}
	}
	return changed, nil
}

// addPast adds key's version at the page's revision, if it existed then.
func addPast(hist *bolt.Bucket, p *page, key string, st pastState) error {
	if !st.exists {
		return nil
	}
	if p.full() {
		p.res.Remaining++
		return nil
	}
	raw := hist.Get(u64(st.modRev))
	if raw == nil {
		return fmt.Errorf("history record %d of key %q is missing: %w", st.modRev, key, store.ErrCorrupt)
	}
	rec, err := decodeRecord(st.modRev, raw)
	if err != nil {
		return err
	}
	p.add([]byte(key), rec.value, st.createRev, st.modRev)
	return nil
}

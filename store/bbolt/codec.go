package bbolt

import (
	"encoding/binary"
	"fmt"

	"github.com/orkit/orkit/store"
)

// On-disk layout. Three buckets:
//
//	orkit.meta     "magic" → schemaMagic, "version" → u64 schemaVersion,
//	               "rev" → u64 current revision, "compact" → u64 compacted
//	               revision, "compact-done" → u64 revision up to which the
//	               compaction's deletions are finished.
//	orkit.keys     key → current record: createRev u64 | modRev u64 | value
//	orkit.history  u64 revision (big endian) → event record:
//	               type u8 | createRev u64 | prevModRev u64 | keyLen u16 | key | value
//
// All integers are big endian.
var (
	bucketMeta    = []byte("orkit.meta")
	bucketKeys    = []byte("orkit.keys")
	bucketHistory = []byte("orkit.history")

	metaMagic       = []byte("magic")
	metaVersion     = []byte("version")
	metaRev         = []byte("rev")
	metaCompact     = []byte("compact")
	metaCompactDone = []byte("compact-done")
)

const (
	schemaMagic   = "orkit-store"
	schemaVersion = 1

	currentHeader = 16
	eventHeader   = 1 + 8 + 8 + 2

	recPut    byte = 1
	recDelete byte = 2
)

// u64 encodes v as 8 big-endian bytes.
func u64(v int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(v))
}

// readU64 decodes an 8-byte big-endian value; a missing value is 0.
func readU64(b []byte, what string) (int64, error) {
	if b == nil {
		return 0, nil
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("meta %s has %d bytes, want 8: %w", what, len(b), store.ErrCorrupt)
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// current is a decoded orkit.keys value. value aliases bbolt memory and is
// valid only inside the transaction it was read in.
type current struct {
	createRev, modRev int64
	value             []byte
}

func encodeCurrent(createRev, modRev int64, value []byte) []byte {
	b := make([]byte, currentHeader, currentHeader+len(value))
	binary.BigEndian.PutUint64(b[0:], uint64(createRev))
	binary.BigEndian.PutUint64(b[8:], uint64(modRev))
	return append(b, value...)
}

func decodeCurrent(key, b []byte) (current, error) {
	if len(b) < currentHeader {
		return current{}, fmt.Errorf("record of key %q is %d bytes: %w", key, len(b), store.ErrCorrupt)
	}
	return current{
		createRev: int64(binary.BigEndian.Uint64(b[0:])),
		modRev:    int64(binary.BigEndian.Uint64(b[8:])),
		value:     b[currentHeader:],
	}, nil
}

// record is a decoded orkit.history value. key and value alias bbolt
// memory, valid only inside the transaction.
type record struct {
	typ                   byte
	createRev, prevModRev int64
	key, value            []byte
}

func encodeRecord(r record) []byte {
	b := make([]byte, eventHeader, eventHeader+len(r.key)+len(r.value))
	b[0] = r.typ
	binary.BigEndian.PutUint64(b[1:], uint64(r.createRev))
	binary.BigEndian.PutUint64(b[9:], uint64(r.prevModRev))
	binary.BigEndian.PutUint16(b[17:], uint16(len(r.key)))
	b = append(b, r.key...)
	return append(b, r.value...)
}

func decodeRecord(rev int64, b []byte) (record, error) {
	bad := func(why string) (record, error) {
		return record{}, fmt.Errorf("history record %d: %s: %w", rev, why, store.ErrCorrupt)
	}
	if len(b) < eventHeader {
		return bad("short header")
	}
	r := record{
		typ:        b[0],
		createRev:  int64(binary.BigEndian.Uint64(b[1:])),
		prevModRev: int64(binary.BigEndian.Uint64(b[9:])),
	}
	n := int(binary.BigEndian.Uint16(b[17:]))
	if len(b) < eventHeader+n {
		return bad("short key")
	}
	if r.typ != recPut && r.typ != recDelete {
		return bad(fmt.Sprintf("unknown type %d", r.typ))
	}
	r.key = b[eventHeader : eventHeader+n]
	r.value = b[eventHeader+n:]
	return r, nil
}

// revOf decodes a history bucket key.
func revOf(k []byte) (int64, error) {
	if len(k) != 8 {
		return 0, fmt.Errorf("history key of %d bytes: %w", len(k), store.ErrCorrupt)
	}
	return int64(binary.BigEndian.Uint64(k)), nil
}

// clone copies bbolt-owned bytes into memory the caller owns; nil stays nil
// but an empty value becomes a non-nil empty slice so a present key never
// reads back with a nil value.
func clone(b []byte) []byte {
	return append(make([]byte, 0, len(b)), b...)
}

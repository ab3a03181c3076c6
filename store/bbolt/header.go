package bbolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"

	"github.com/orkit/orkit/store"
)

// bbolt's file header, as written by go.etcd.io/bbolt v1: two meta pages
// (page 0 and page 1), each a 16-byte page header followed by
//
//	magic u32 | version u32 | pageSize u32 | flags u32 | root pgid u64 |
//	root sequence u64 | freelist pgid u64 | high-water pgid u64 | txid u64 |
//	checksum u64 (FNV-64a of the 56 bytes before it)
//
// in the machine's byte order (little endian on every platform orkit runs
// on). bbolt trusts these pages and may panic or fault on a file whose
// pages do not match them, so Open checks them first.
const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	boltPageHeader  = 16
	boltMetaSize    = 64
	boltMinPageSize = 1024
	boltMaxPageSize = 1 << 16
)

// boltMeta is the part of a meta page checkFile needs.
type boltMeta struct {
	pageSize uint32
	pgid     uint64 // high-water mark: pages [0, pgid) are in use
	txid     uint64
}

// parseMeta decodes and validates one meta page; ok is false when the page
// is not a valid bbolt meta page.
func parseMeta(page []byte) (boltMeta, bool) {
	if len(page) < boltPageHeader+boltMetaSize {
		return boltMeta{}, false
	}
	m := page[boltPageHeader : boltPageHeader+boltMetaSize]
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != boltMagic || le.Uint32(m[4:]) != boltVersion {
		return boltMeta{}, false
	}
	h := fnv.New64a()
	_, _ = h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return boltMeta{}, false
	}
	meta := boltMeta{pageSize: le.Uint32(m[8:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}
	if meta.pageSize < boltMinPageSize || meta.pageSize > boltMaxPageSize || meta.pageSize&(meta.pageSize-1) != 0 {
		return boltMeta{}, false
	}
	return meta, true
}

// checkFile validates the header of an existing database file before bbolt
// maps it: at least one valid meta page, and a file long enough to hold
// every page that meta says is in use (a truncated file would make bbolt
// fault on its first read). A missing or empty file passes: Open creates it.
// Errors wrap store.ErrCorrupt, except I/O errors, which are returned as is.
// torn reports that exactly one meta page is invalid: the mark of a crash
// during bbolt's meta write, which bbolt survives by using the other page.
func checkFile(path string) (torn bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	size := info.Size()
	if size == 0 {
		return false, nil
	}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %w", path, fmt.Sprintf(format, args...), store.ErrCorrupt)
	}
	if info.IsDir() {
		return false, corrupt("is a directory")
	}
	if size < 2*boltMinPageSize {
		return false, corrupt("file is %d bytes, shorter than a database header", size)
	}
	best, valid, err := bestMeta(f, size)
	if err != nil {
		return false, fmt.Errorf("read header of %s: %w", path, err)
	}
	if valid == 0 {
		return false, corrupt("no valid bbolt meta page (not a bbolt file, or its header is damaged)")
	}
	if need := int64(best.pgid) * int64(best.pageSize); size < need {
		return false, corrupt("file is truncated: %d bytes, header says %d pages of %d bytes (%d bytes)",
			size, best.pgid, best.pageSize, need)
	}
	return valid == 1, nil
}

// bestMeta reads both meta pages and returns the valid one with the higher
// transaction id, as bbolt does, and how many are valid. The second page's
// offset is the first's page size, or found by trying every legal page size
// when page 0 is bad.
func bestMeta(f *os.File, size int64) (boltMeta, int, error) {
	buf := make([]byte, boltPageHeader+boltMetaSize)
	read := func(off int64) (boltMeta, bool, error) {
		if off+int64(len(buf)) > size {
			return boltMeta{}, false, nil
		}
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return boltMeta{}, false, err
		}
		m, ok := parseMeta(buf)
		return m, ok, nil
	}
	m0, ok0, err := read(0)
	if err != nil {
		return boltMeta{}, 0, err
	}
	offsets := []int64{}
	if ok0 {
		offsets = append(offsets, int64(m0.pageSize))
	} else {
		for ps := int64(boltMinPageSize); ps <= boltMaxPageSize; ps *= 2 {
			offsets = append(offsets, ps)
		}
	}
	for _, off := range offsets {
		m1, ok1, err := read(off)
		if err != nil {
			return boltMeta{}, 0, err
		}
		if !ok1 || int64(m1.pageSize) != off {
			continue
		}
		switch {
		case !ok0:
			return m1, 1, nil
		case m1.txid > m0.txid:
			return m1, 2, nil
		}
		return m0, 2, nil
	}
	if ok0 {
		return m0, 1, nil
	}
	return boltMeta{}, 0, nil
}

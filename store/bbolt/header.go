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
	root     uint64 // root bucket page
	freelist uint64 // freelist page (^0: not synced)
	pgid     uint64 // high-water mark: pages [0, pgid) are in use
	txid     uint64
}

// bbolt page flags.
const (
	boltBranchPage   = 0x01
	boltLeafPage     = 0x02
	boltFreelistPage = 0x10
)

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
	meta := boltMeta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]),
		pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}
	if meta.pageSize < boltMinPageSize || meta.pageSize > boltMaxPageSize || meta.pageSize&(meta.pageSize-1) != 0 {
		return boltMeta{}, false
	}
	return meta, true
}

// tornMeta describes a file with exactly one valid meta page: the mark of
// a crash during bbolt's meta write, or of a damaged page. bbolt opens such
// a file from the valid page, so the transaction the other page may have
// held, the one after the valid page's, is lost if it had committed.
type tornMeta struct {
	// bad is the invalid meta page (0 or 1), good the valid one.
	bad, good int
	// txid is the valid page's transaction id: the state Open serves.
	txid uint64
}

// checkFile validates the header of an existing database file before bbolt
// maps it: at least one valid meta page, and a file long enough to hold
// every page that meta says is in use (a truncated file would make bbolt
// fault on its first read). A missing or empty file passes: Open creates it.
// Errors wrap store.ErrCorrupt, except I/O errors, which are returned as is.
// torn is non-nil when exactly one meta page is invalid (see tornMeta).
func checkFile(path string) (torn *tornMeta, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	size := info.Size()
	if size == 0 {
		return nil, nil
	}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %w", path, fmt.Sprintf(format, args...), store.ErrCorrupt)
	}
	if info.IsDir() {
		return nil, corrupt("is a directory")
	}
	if size < 2*boltMinPageSize {
		return nil, corrupt("file is %d bytes, shorter than a database header", size)
	}
	h, err := readMetas(f, size)
	if err != nil {
		return nil, fmt.Errorf("read header of %s: %w", path, err)
	}
	best, valid := h.best()
	if valid == 0 {
		return nil, corrupt("no valid bbolt meta page (not a bbolt file, or its header is damaged)")
	}
	if need := int64(best.pgid) * int64(best.pageSize); best.pgid > 1<<40 || size < need {
		return nil, corrupt("file is truncated: %d bytes, header says %d pages of %d bytes (%d bytes)",
			size, best.pgid, best.pageSize, need)
	}
	if reason, err := checkPages(f, best); err != nil {
		return nil, fmt.Errorf("read pages of %s: %w", path, err)
	} else if reason != "" {
		return nil, corrupt("%s", reason)
	}
	if best.freelist == ^uint64(0) {
		// bbolt rebuilds the freelist by walking every page, in a
		// goroutine no guard reaches: walk them first.
		if reason, err := walkPages(f, best); err != nil {
			return nil, fmt.Errorf("read pages of %s: %w", path, err)
		} else if reason != "" {
			return nil, corrupt("%s", reason)
		}
	}
	if valid == 1 {
		good := 0
		if h.ok[1] {
			good = 1
		}
		return &tornMeta{bad: 1 - good, good: good, txid: best.txid}, nil
	}
	return nil, nil
}

// metaPages are a file's two meta pages as read: ok[i] tells whether page
// i is a valid bbolt meta page, m[i] is its content when it is.
type metaPages struct {
	m  [2]boltMeta
	ok [2]bool
}

// best returns the valid page with the higher transaction id, as bbolt
// picks it, and how many pages are valid.
func (h metaPages) best() (boltMeta, int) {
	switch {
	case h.ok[0] && h.ok[1]:
		if h.m[1].txid > h.m[0].txid {
			return h.m[1], 2
		}
		return h.m[0], 2
	case h.ok[0]:
		return h.m[0], 1
	case h.ok[1]:
		return h.m[1], 1
	}
	return boltMeta{}, 0
}

// readMetas reads both meta pages. The second page's offset is the first's
// page size, or found by trying every legal page size when page 0 is bad.
func readMetas(f *os.File, size int64) (metaPages, error) {
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
	var h metaPages
	var err error
	if h.m[0], h.ok[0], err = read(0); err != nil {
		return h, err
	}
	offsets := []int64{}
	if h.ok[0] {
		offsets = append(offsets, int64(h.m[0].pageSize))
	} else {
		for ps := int64(boltMinPageSize); ps <= boltMaxPageSize; ps *= 2 {
			offsets = append(offsets, ps)
		}
	}
	for _, off := range offsets {
		m1, ok1, err := read(off)
		if err != nil {
			return h, err
		}
		if ok1 && int64(m1.pageSize) == off {
			h.m[1], h.ok[1] = m1, true
			break
		}
	}
	return h, nil
}

// checkPages checks the two pages bbolt reads while opening: the root
// bucket page and the freelist page (when the file has one: orkit no
// longer writes it, see openBoltOnce, but older files do), whose damage
// would make bbolt panic or fault inside bbolt.Open, leaving the file
// mapped and locked. It returns a reason when they are damaged.
func checkPages(f *os.File, m boltMeta) (string, error) {
	ps := int64(m.pageSize)
	hdr := make([]byte, boltPageHeader+8)
	readHeader := func(pgid uint64) (flags uint16, count, overflow uint64, err error) {
		if _, err := f.ReadAt(hdr, int64(pgid)*ps); err != nil {
			return 0, 0, 0, err
		}
		le := binary.LittleEndian
		return le.Uint16(hdr[8:]), uint64(le.Uint16(hdr[10:])), uint64(le.Uint32(hdr[12:])), nil
	}
	if m.root < 2 || m.root >= m.pgid {
		return fmt.Sprintf("root page %d outside pages 2..%d", m.root, m.pgid-1), nil
	}
	flags, _, overflow, err := readHeader(m.root)
	if err != nil {
		return "", err
	}
	if (flags != boltBranchPage && flags != boltLeafPage) || m.root+overflow >= m.pgid {
		return fmt.Sprintf("root page %d is damaged (flags %#x, overflow %d)", m.root, flags, overflow), nil
	}
	if m.freelist == ^uint64(0) {
		return "", nil // not synced (NoFreelistSync): bbolt rebuilds it from the pages
	}
	if m.freelist < 2 || m.freelist >= m.pgid {
		return fmt.Sprintf("freelist page %d outside pages 2..%d", m.freelist, m.pgid-1), nil
	}
	flags, count, overflow, err := readHeader(m.freelist)
	if err != nil {
		return "", err
	}
	first := uint64(0)
	if count == 0xFFFF { // the real count is the first element
		count, first = binary.LittleEndian.Uint64(hdr[boltPageHeader:]), 1
	}
	span := (overflow + 1) * uint64(ps)
	if flags != boltFreelistPage || m.freelist+overflow >= m.pgid ||
		count > span/8 || boltPageHeader+(first+count)*8 > span {
		return fmt.Sprintf("freelist page %d is damaged (flags %#x, count %d, overflow %d)",
			m.freelist, flags, count, overflow), nil
	}
	ids := make([]byte, count*8)
	if _, err := f.ReadAt(ids, int64(m.freelist)*ps+boltPageHeader+int64(first)*8); err != nil {
		return "", err
	}
	for i := 0; i < len(ids); i += 8 {
		if id := binary.LittleEndian.Uint64(ids[i:]); id < 2 || id >= m.pgid {
			return fmt.Sprintf("freelist names page %d outside pages 2..%d", id, m.pgid-1), nil
		}
	}
	return "", nil
}

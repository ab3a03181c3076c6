package bbolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
)

// bbolt's page and element layout (go.etcd.io/bbolt internal/common).
const (
	boltElemSize     = 16 // branch and leaf page elements alike
	boltBucketHeader = 16 // a bucket value: root pgid u64 | sequence u64
	boltBucketLeaf   = 0x01
)

// pageWalk checks, reading the file, every page reachable from the root
// bucket: what bbolt's Open walks, in a goroutine of its own where a panic
// or a fault cannot be recovered, to rebuild the freelist of a file that
// does not store it (NoFreelistSync). Each page must identify itself
// with its own id, be a branch or leaf page within the high-water mark,
// be referenced once, and hold its elements within itself, its keys in
// order within the range its parent gives (bbolt's key-order check; what
// it reports there, bbolt's Open panics with); bucket values must hold a
// bucket header, inline buckets a valid inline page.
type pageWalk struct {
	f    *os.File
	m    boltMeta
	seen map[uint64]bool
}

// walkPages returns why the page tree of f (described by m) is damaged,
// or "" when bbolt can walk it safely.
func walkPages(f *os.File, m boltMeta) (string, error) {
	w := &pageWalk{f: f, m: m, seen: map[uint64]bool{}}
	return w.page(m.root, nil, nil)
}

// page checks page id and, depth first, what it references; its keys must
// be >= lo and < hi (nil: unbounded).
func (w *pageWalk) page(id uint64, lo, hi []byte) (string, error) {
	ps := uint64(w.m.pageSize)
	if id < 2 || id >= w.m.pgid {
		return fmt.Sprintf("page %d referenced outside pages 2..%d", id, w.m.pgid-1), nil
	}
	hdr := make([]byte, boltPageHeader)
	if _, err := w.f.ReadAt(hdr, int64(id*ps)); err != nil {
		return "", err
	}
	le := binary.LittleEndian
	self, flags, overflow := le.Uint64(hdr), le.Uint16(hdr[8:]), uint64(le.Uint32(hdr[12:]))
	if self != id {
		return fmt.Sprintf("page %d identifies itself as page %d", id, self), nil
	}
	if flags != boltBranchPage && flags != boltLeafPage {
		return fmt.Sprintf("page %d has flags %#x, not a branch or leaf page", id, flags), nil
	}
	if id+overflow >= w.m.pgid {
		return fmt.Sprintf("page %d overflows %d pages past the high-water mark %d", id, overflow, w.m.pgid), nil
	}
	for i := id; i <= id+overflow; i++ {
		if w.seen[i] {
			return fmt.Sprintf("page %d is referenced twice", i), nil
		}
		w.seen[i] = true
	}
	buf := make([]byte, (overflow+1)*ps)
	if _, err := w.f.ReadAt(buf, int64(id*ps)); err != nil {
		return "", err
	}
	return w.elements(fmt.Sprintf("page %d", id), buf, lo, hi)
}

// elements checks the elements of the page in buf (a file page and its
// overflow, or an inline bucket's page) and walks what they reference.
// Keys must increase, from lo (inclusive) to hi (exclusive).
func (w *pageWalk) elements(where string, buf []byte, lo, hi []byte) (string, error) {
	le := binary.LittleEndian
	flags, count := le.Uint16(buf[8:]), int(le.Uint16(buf[10:]))
	if boltPageHeader+count*boltElemSize > len(buf) {
		return fmt.Sprintf("%s: %d elements do not fit in %d bytes", where, count, len(buf)), nil
	}
	keys := make([][]byte, count)
	vals := make([][]byte, count)
	eflags := make([]uint32, count)
	for i := range count {
		off := boltPageHeader + i*boltElemSize
		e := buf[off : off+boltElemSize]
		var pos, ksize, vsize uint64
		if flags == boltBranchPage {
			pos, ksize = uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
		} else {
			eflags[i] = le.Uint32(e)
			pos, ksize, vsize = uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		}
		if uint64(off)+pos+ksize+vsize > uint64(len(buf)) {
			return fmt.Sprintf("%s: element %d lies outside the page", where, i), nil
		}
		k := uint64(off) + pos
		keys[i], vals[i] = buf[k:k+ksize], buf[k+ksize:k+ksize+vsize]
		if i == 0 && lo != nil && bytes.Compare(keys[i], lo) < 0 ||
			i > 0 && bytes.Compare(keys[i-1], keys[i]) >= 0 || hi != nil && bytes.Compare(keys[i], hi) >= 0 {
			return fmt.Sprintf("%s: key %d out of order", where, i), nil
		}
	}
	for i := range count {
		var reason string
		var err error
		switch {
		case flags == boltBranchPage:
			next := hi
			if i+1 < count {
				next = keys[i+1]
			}
			pgid := le.Uint64(buf[boltPageHeader+i*boltElemSize+8:])
			reason, err = w.page(pgid, keys[i], next)
		case eflags[i]&boltBucketLeaf != 0:
			reason, err = w.bucket(where, vals[i])
		}
		if reason != "" || err != nil {
			return reason, err
		}
	}
	return "", nil
}

// bucket checks a bucket value: its root page, or its inline page.
func (w *pageWalk) bucket(where string, v []byte) (string, error) {
	if len(v) < boltBucketHeader {
		return fmt.Sprintf("%s: a bucket value of %d bytes", where, len(v)), nil
	}
	if root := binary.LittleEndian.Uint64(v); root != 0 {
		return w.page(root, nil, nil)
	}
	inline := v[boltBucketHeader:]
	if len(inline) < boltPageHeader {
		return fmt.Sprintf("%s: an inline bucket of %d bytes", where, len(inline)), nil
	}
	if flags := binary.LittleEndian.Uint16(inline[8:]); flags != boltLeafPage {
		return fmt.Sprintf("%s: an inline bucket page with flags %#x", where, flags), nil
	}
	return w.elements(where+" (inline bucket)", inline, nil, nil)
}

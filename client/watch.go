package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/orkit/orkit/api/meta"
)

// MaxWatchFrameBytes is the largest watch frame the decoder accepts; a
// bigger one ends the watch with an ErrDecode error rather than growing
// without bound.
const MaxWatchFrameBytes = 32 << 20

// Event is one change seen by a watch. Type is meta.Added, meta.Modified,
// meta.Deleted, meta.Bookmark (Object carries only a resourceVersion) or
// meta.Error. For meta.Error, Object is nil and Err holds the cause: the
// server's *meta.Status (410 reason Expired when the resourceVersion is
// too old, see apierrors.IsResourceExpired) or a decode error wrapping
// ErrDecode.
type Event[PT any] struct {
	Type   string
	Object PT
	Err    error
}

// WatchDecoder splits a watch stream into frames: JSON objects
// {"type":...,"object":...} one after the other, with any whitespace
// between them. It reads r through its own buffer and is not safe for
// concurrent use.
type WatchDecoder struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// NewWatchDecoder returns a decoder reading frames from r, each at most
// maxFrame bytes (MaxWatchFrameBytes when maxFrame <= 0).
func NewWatchDecoder(r io.Reader, maxFrame int) *WatchDecoder {
	if maxFrame <= 0 {
		maxFrame = MaxWatchFrameBytes
	}
	return &WatchDecoder{r: bufio.NewReaderSize(r, 32<<10), max: maxFrame}
}

// Next returns the next frame. It returns io.EOF when the stream ends
// cleanly between frames; a frame that is cut short, too big, not JSON,
// or lacks a known type or an object is an error wrapping ErrDecode. A
// read error of the underlying stream is returned wrapped.
func (d *WatchDecoder) Next() (meta.WatchEvent, error) {
	var ev meta.WatchEvent
	frame, err := d.frame()
	if err != nil {
		return ev, err
	}
	if err := json.Unmarshal(frame, &ev); err != nil {
		return ev, fmt.Errorf("%w: watch frame: %w", ErrDecode, err)
	}
	switch ev.Type {
	case meta.Added, meta.Modified, meta.Deleted, meta.Bookmark, meta.Error:
	default:
		return ev, fmt.Errorf("%w: watch frame has unknown type %q", ErrDecode, ev.Type)
	}
	if len(ev.Object) == 0 || ev.Object[0] != '{' {
		return ev, fmt.Errorf("%w: %s watch frame carries no object", ErrDecode, ev.Type)
	}
	return ev, nil
}

// frame reads one top-level JSON object, tracking strings and nesting so
// that braces inside strings do not count.
func (d *WatchDecoder) frame() ([]byte, error) {
	c, err := d.skipSpace()
	if err != nil {
		return nil, err
	}
	if c != '{' {
		return nil, fmt.Errorf("%w: watch frame starts with %q, not '{'", ErrDecode, c)
	}
	if cap(d.buf) > 1<<20 {
		d.buf = nil // do not keep one huge frame's buffer for the life of the watch
	}
	d.buf = append(d.buf[:0], c)
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		c, err := d.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: watch frame cut short: %w", ErrDecode, io.ErrUnexpectedEOF)
			}
			return nil, fmt.Errorf("read watch stream: %w", err)
		}
		if len(d.buf) >= d.max {
			return nil, fmt.Errorf("%w: watch frame larger than %d bytes", ErrDecode, d.max)
		}
		d.buf = append(d.buf, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return d.buf, nil
}

func (d *WatchDecoder) skipSpace() (byte, error) {
	for {
		c, err := d.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("read watch stream: %w", err)
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c, nil
	}
}

// decodeEvent turns a frame into a typed event. ERROR frames become
// events carrying the server's Status as Err.
func decodeEvent[T any, PT interface {
	*T
	meta.Object
}](ev meta.WatchEvent) Event[PT] {
	if ev.Type == meta.Error {
		st := &meta.Status{}
		if err := json.Unmarshal(ev.Object, st); err != nil {
			return Event[PT]{Type: meta.Error, Err: fmt.Errorf("%w: watch ERROR frame: %w", ErrDecode, err)}
		}
		if st.Code == 0 && st.Reason == "" {
			st.Reason = meta.StatusReasonInternalError
		}
		return Event[PT]{Type: meta.Error, Err: fmt.Errorf("watch: %w", st)}
	}
	obj := PT(new(T))
	if err := json.Unmarshal(ev.Object, obj); err != nil {
		return Event[PT]{Type: meta.Error, Err: fmt.Errorf("%w: %s watch event object: %w", ErrDecode, ev.Type, err)}
	}
	return Event[PT]{Type: ev.Type, Object: obj}
}

// pump decodes body into events on out until the stream ends, a frame is
// bad or ctx ends; then it closes body and out. It is the one goroutine a
// watch owns.
func pump[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, body io.ReadCloser, out chan<- Event[PT]) {
	defer close(out)
	defer body.Close()
	dec := NewWatchDecoder(body, 0)
	for {
		raw, err := dec.Next()
		var ev Event[PT]
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, io.EOF):
			return
		case err != nil:
			ev = Event[PT]{Type: meta.Error, Err: err}
		default:
			ev = decodeEvent[T, PT](raw)
		}
		select {
		case out <- ev:
		case <-ctx.Done():
			return
		}
		if ev.Type == meta.Error {
			return // the server ends a watch after an ERROR frame; so do we after any error
		}
	}
}

package spdy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// MaxStreamBuffer bounds the data received for a stream and not yet read.
const MaxStreamBuffer = 4 << 20

// Stream is one stream the peer opened. Read returns what the peer sent,
// then io.EOF once it has half-closed the stream (FIN); Write sends DATA;
// Close half-closes this side (FIN); Reset aborts the stream. Read
// belongs to one goroutine; Write, Close and Reset may be called from any.
// After the connection ends, Read and Write fail with ErrClosed.
type Stream struct {
	c       *Conn
	id      uint32
	headers http.Header

	mu        sync.Mutex
	cond      *sync.Cond
	buf       bytes.Buffer
	remoteFin bool
	localFin  bool
	err       error // reset or closed: ends reads and writes
}

func newStream(c *Conn, id uint32, h http.Header) *Stream {
	st := &Stream{c: c, id: id, headers: h}
	st.cond = sync.NewCond(&st.mu)
	return st
}

// ID is the stream's ID.
func (s *Stream) ID() uint32 { return s.id }

// Headers are the headers of the peer's SYN_STREAM (canonical names).
// The caller must not modify them.
func (s *Stream) Headers() http.Header { return s.headers }

// push appends data received for the stream and records a FIN; it
// reports false when the buffer would exceed MaxStreamBuffer.
func (s *Stream) push(data []byte, fin bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.remoteFin {
		return true // after a reset or FIN, late data is dropped
	}
	if s.buf.Len()+len(data) > MaxStreamBuffer {
		return false
	}
	s.buf.Write(data)
	s.remoteFin = fin
	s.cond.Broadcast()
	if fin && s.localFin {
		go s.c.forget(s.id)
	}
	return true
}

// fail ends the stream with err (reset, or the connection closed).
func (s *Stream) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.cond.Broadcast()
	s.mu.Unlock()
}

// Read reads data the peer sent; io.EOF after its FIN.
func (s *Stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.buf.Len() == 0 && !s.remoteFin && s.err == nil {
		s.cond.Wait()
	}
	if s.buf.Len() > 0 {
		return s.buf.Read(p)
	}
	if s.err != nil {
		return 0, s.err
	}
	return 0, io.EOF
}

// Write sends p as DATA frames. It fails with ErrClosed after Close, or
// with the stream's error after a reset.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	err := s.err
	if err == nil && s.localFin {
		err = fmt.Errorf("%w: stream %d: write after close", ErrClosed, s.id)
	}
	s.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), defaultWriteChunk)]
		if err := s.c.writeFrame(appendData(nil, s.id, 0, chunk)); err != nil {
			return n, err
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	return n, nil
}

// Close half-closes the stream: the peer reads EOF once it has read what
// was written. Closing twice, or a reset stream, does nothing.
func (s *Stream) Close() error {
	s.mu.Lock()
	if s.localFin || s.err != nil {
		s.mu.Unlock()
		return nil
	}
	s.localFin = true
	both := s.remoteFin
	s.mu.Unlock()
	if both {
		s.c.forget(s.id)
	}
	return s.c.writeFrame(appendData(nil, s.id, flagFin, nil))
}

// Reset aborts the stream (RST_STREAM CANCEL): both sides stop.
func (s *Stream) Reset() error {
	s.fail(fmt.Errorf("%w: stream %d reset by this side", ErrStreamReset, s.id))
	s.c.forget(s.id)
	return s.c.rst(s.id, rstCancel)
}

package spdy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// Conn is the server side of one SPDY/3.1 connection over rwc (a TCP
// connection, or a WebSocket tunnel carrying the byte stream). Serve
// reads it; streams write through it. A Conn is safe for concurrent use;
// it owns rwc and closes it when Serve returns.
type Conn struct {
	rwc io.ReadWriteCloser
	fr  *framer

	wmu sync.Mutex // serializes frame writes and the compression context

	mu      sync.Mutex
	streams map[uint32]*Stream
	lastID  uint32 // highest stream ID the peer has opened
}

// NewConn returns a server Conn over rwc; nothing is read before Serve.
func NewConn(rwc io.ReadWriteCloser) *Conn {
	return &Conn{rwc: rwc, fr: newFramer(rwc), streams: map[uint32]*Stream{}}
}

// Serve reads frames until the peer closes the connection, a frame breaks
// the protocol, or ctx ends, and then closes the connection and every
// stream (their reads and writes fail with ErrClosed). Each stream the
// peer opens is answered with a SYN_REPLY and passed to accept, which
// runs on Serve's goroutine and must not block (start a goroutine for the
// stream's work). Serve returns nil at a clean end (EOF, or ctx), else the
// error that ended it.
func (c *Conn) Serve(ctx context.Context, accept func(*Stream)) error {
	stop := context.AfterFunc(ctx, func() { c.rwc.Close() })
	defer stop()
	defer c.shutdown()
	for {
		fr, err := c.fr.readFrame()
		if err != nil {
			if errors.Is(err, ErrProtocol) {
				c.goAway(goAwayProtocolError)
				return err
			}
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		if err := c.dispatch(fr, accept); err != nil {
			c.goAway(goAwayProtocolError)
			return err
		}
	}
}

// dispatch acts on one frame.
func (c *Conn) dispatch(fr *frame, accept func(*Stream)) error {
	if !fr.control {
		c.onData(fr)
		return nil
	}
	switch fr.typ {
	case typeSynStream:
		return c.onSynStream(fr, accept)
	case typeRstStream:
		if st := c.stream(fr.streamID); st != nil {
			st.fail(fmt.Errorf("%w: stream %d, status %d", ErrStreamReset, fr.streamID, fr.status))
			c.forget(st.id)
		}
	case typePing:
		var p [4]byte
		binary.BigEndian.PutUint32(p[:], fr.pingID)
		return c.writeFrame(appendControl(nil, typePing, 0, p[:]))
	}
	// SETTINGS, GOAWAY (the peer opens no more streams; it closes the
	// connection next), HEADERS, WINDOW_UPDATE: nothing to do.
	return nil
}

// onSynStream registers a stream the peer opened, replies and accepts it.
func (c *Conn) onSynStream(fr *frame, accept func(*Stream)) error {
	c.mu.Lock()
	if fr.streamID == 0 || fr.streamID%2 == 0 || fr.streamID <= c.lastID {
		c.mu.Unlock()
		return fmt.Errorf("%w: SYN_STREAM with stream ID %d (last %d)", ErrProtocol, fr.streamID, c.lastID)
	}
	c.lastID = fr.streamID
	st := newStream(c, fr.streamID, fr.headers)
	c.streams[st.id] = st
	c.mu.Unlock()
	if fr.flags&flagFin != 0 {
		st.push(nil, true)
	}
	if err := c.writeHeaders(typeSynReply, st.id, 0, http.Header{}); err != nil {
		return err
	}
	accept(st)
	return nil
}

// onData hands a data frame to its stream; data for an unknown stream is
// answered with RST_STREAM INVALID_STREAM.
func (c *Conn) onData(fr *frame) {
	st := c.stream(fr.streamID)
	if st == nil {
		c.rst(fr.streamID, rstInvalidStream)
		return
	}
	if !st.push(fr.data, fr.flags&flagFin != 0) {
		c.rst(st.id, rstFlowControlError)
		st.fail(fmt.Errorf("%w: stream %d: more than %d bytes buffered", ErrStreamReset, st.id, MaxStreamBuffer))
		c.forget(st.id)
	}
}

func (c *Conn) stream(id uint32) *Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

func (c *Conn) forget(id uint32) {
	c.mu.Lock()
	delete(c.streams, id)
	c.mu.Unlock()
}

// Close closes the connection: Serve returns and every stream fails.
func (c *Conn) Close() error { return c.rwc.Close() }

// shutdown fails every stream and closes the connection.
func (c *Conn) shutdown() {
	c.mu.Lock()
	streams := c.streams
	c.streams = map[uint32]*Stream{}
	c.mu.Unlock()
	for _, st := range streams {
		st.fail(ErrClosed)
	}
	c.rwc.Close()
}

// writeFrame writes one encoded frame (or several) in one write.
func (c *Conn) writeFrame(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.rwc.Write(b); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return nil
}

// writeHeaders writes a SYN_REPLY or HEADERS frame for stream id.
func (c *Conn) writeHeaders(typ uint16, id uint32, flags byte, h http.Header) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	p := binary.BigEndian.AppendUint32(nil, id)
	p = append(p, c.fr.headerBlock(h)...)
	if _, err := c.rwc.Write(appendControl(nil, typ, flags, p)); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return nil
}

// rst resets stream id with status.
func (c *Conn) rst(id, status uint32) error {
	p := binary.BigEndian.AppendUint32(nil, id)
	p = binary.BigEndian.AppendUint32(p, status)
	return c.writeFrame(appendControl(nil, typeRstStream, 0, p))
}

// goAway tells the peer the connection ends, naming the last stream seen.
func (c *Conn) goAway(status uint32) {
	c.mu.Lock()
	last := c.lastID
	c.mu.Unlock()
	p := binary.BigEndian.AppendUint32(nil, last)
	p = binary.BigEndian.AppendUint32(p, status)
	c.writeFrame(appendControl(nil, typeGoAway, 0, p))
}

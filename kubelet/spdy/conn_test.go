package spdy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testClient is the client side of a connection, written with the
// package's own framer (its compression context is the client's).
type testClient struct {
	t    *testing.T
	conn net.Conn
	fr   *framer
}

// serve starts a server Conn on one end of a pipe; accepted streams go to
// the returned channel; Serve's result to the error channel.
func serve(t *testing.T) (*testClient, <-chan *Stream, <-chan error) {
	a, b := net.Pipe()
	c := NewConn(b)
	streams := make(chan *Stream, 16)
	errc := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { errc <- c.Serve(ctx, func(s *Stream) { streams <- s }) }()
	t.Cleanup(func() {
		cancel()
		a.Close()
	})
	a.SetDeadline(time.Now().Add(10 * time.Second))
	return &testClient{t: t, conn: a, fr: newFramer(a)}, streams, errc
}

func (c *testClient) write(b []byte) {
	c.t.Helper()
	_, err := c.conn.Write(b)
	require.NoError(c.t, err)
}

func (c *testClient) synStream(id uint32, flags byte, h http.Header) {
	p := binary.BigEndian.AppendUint32(nil, id)
	p = binary.BigEndian.AppendUint32(p, 0)
	p = append(p, 0, 0)
	c.write(appendControl(nil, typeSynStream, flags, append(p, c.fr.headerBlock(h)...)))
}

func (c *testClient) read() *frame {
	c.t.Helper()
	f, err := c.fr.readFrame()
	require.NoError(c.t, err)
	return f
}

func TestStreamLifecycle(t *testing.T) {
	c, streams, errc := serve(t)
	c.synStream(1, 0, http.Header{"Streamtype": {"data"}, "Port": {"8080"}})
	reply := c.read()
	assert.Equal(t, typeSynReply, reply.typ)
	assert.Equal(t, uint32(1), reply.streamID)
	st := <-streams
	assert.Equal(t, "8080", st.Headers().Get("port"))

	c.write(appendData(nil, 1, 0, []byte("hello ")))
	c.write(appendData(nil, 1, flagFin, []byte("world")))
	got, err := io.ReadAll(st)
	require.NoError(t, err)
	assert.Equal(t, "hello world", string(got))

	go func() {
		st.Write(bytes.Repeat([]byte("x"), defaultWriteChunk+10))
		st.Close()
	}()
	var data []byte
	for {
		f := c.read()
		require.False(t, f.control)
		data = append(data, f.data...)
		if f.flags&flagFin != 0 {
			break
		}
	}
	assert.Len(t, data, defaultWriteChunk+10)
	_, err = st.Write([]byte("late"))
	assert.ErrorIs(t, err, ErrClosed)

	// A PING is echoed; a second stream reuses the compression contexts.
	c.write(appendControl(nil, typePing, 0, []byte{0, 0, 0, 7}))
	assert.Equal(t, uint32(7), c.read().pingID)
	c.synStream(3, flagFin, http.Header{"Streamtype": {"error"}})
	assert.Equal(t, uint32(3), c.read().streamID)
	st3 := <-streams
	n, err := st3.Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.Equal(t, io.EOF, err)

	// RST_STREAM from the client fails the stream's reads.
	c.synStream(5, 0, http.Header{"A": {"b"}})
	c.read()
	st5 := <-streams
	rst := binary.BigEndian.AppendUint32(nil, 5)
	c.write(appendControl(nil, typeRstStream, 0, binary.BigEndian.AppendUint32(rst, rstCancel)))
	_, err = st5.Read(make([]byte, 1))
	assert.ErrorIs(t, err, ErrStreamReset)

	c.conn.Close()
	require.NoError(t, <-errc)
	_, err = st.Read(make([]byte, 1))
	assert.Equal(t, io.EOF, err, "a stream read to its FIN stays at EOF")
}

// TestMalformedFrames: each breaks the protocol; the server answers
// GOAWAY (where it can) and ends with ErrProtocol.
func TestMalformedFrames(t *testing.T) {
	ctrl := func(typ uint16, payload []byte) []byte { return appendControl(nil, typ, 0, payload) }
	badVersion := ctrl(typePing, []byte{0, 0, 0, 1})
	badVersion[1] = 2
	tests := []struct {
		name  string
		frame func(c *testClient) []byte
	}{
		{"bad version", func(*testClient) []byte { return badVersion }},
		{"short SYN_STREAM", func(*testClient) []byte { return ctrl(typeSynStream, []byte{0, 0, 0, 1}) }},
		{"header block not zlib", func(*testClient) []byte {
			return ctrl(typeSynStream, []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 'n', 'o', 't', 'z'})
		}},
		{"even stream ID", func(c *testClient) []byte {
			p := append(binary.BigEndian.AppendUint32(nil, 2), 0, 0, 0, 0, 0, 0)
			return ctrl(typeSynStream, append(p, c.fr.headerBlock(http.Header{})...))
		}},
		{"oversized control frame", func(*testClient) []byte {
			return append(binary.BigEndian.AppendUint16(nil, 0x8000|version), 0, byte(typePing), 0, 0xff, 0xff, 0xff)
		}},
		{"truncated data frame", func(*testClient) []byte { return []byte{0, 0, 0, 1, 0, 0, 0, 9, 'x'} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, errc := serve(t)
			go func() {
				c.conn.Write(tt.frame(c))
				if tt.name == "truncated data frame" {
					c.conn.Close()
				}
			}()
			if tt.name != "truncated data frame" {
				f, err := c.fr.readFrame()
				if err == nil {
					assert.Equal(t, typeGoAway, f.typ)
					assert.Equal(t, goAwayProtocolError, f.status)
				}
			}
			err := <-errc
			assert.True(t, errors.Is(err, ErrProtocol), "got %v", err)
		})
	}
}

func TestDataForUnknownStreamIsReset(t *testing.T) {
	c, _, _ := serve(t)
	c.write(appendData(nil, 9, 0, []byte("x")))
	f := c.read()
	assert.Equal(t, typeRstStream, f.typ)
	assert.Equal(t, uint32(9), f.streamID)
	assert.Equal(t, rstInvalidStream, f.status)
}

func TestBufferLimit(t *testing.T) {
	c, streams, _ := serve(t)
	c.synStream(1, 0, http.Header{})
	c.read()
	st := <-streams
	chunk := make([]byte, 1<<20)
	for range MaxStreamBuffer / len(chunk) {
		c.write(appendData(nil, 1, 0, chunk))
	}
	c.write(appendData(nil, 1, 0, []byte("one too many")))
	f := c.read()
	assert.Equal(t, typeRstStream, f.typ)
	assert.Equal(t, rstFlowControlError, f.status)
	_, err := io.ReadAll(st)
	assert.ErrorIs(t, err, ErrStreamReset)
}

func TestDictionary(t *testing.T) {
	assert.Len(t, headerDictionary, 1423, "the SPDY/3 dictionary's length")
}

// FuzzReadFrame feeds arbitrary bytes to the frame reader: it returns
// frames or errors, never panics, and bounds what it allocates.
func FuzzReadFrame(f *testing.F) {
	var cl bytes.Buffer
	cf := newFramer(&cl)
	p := append(binary.BigEndian.AppendUint32(nil, 1), 0, 0, 0, 0, 0, 0)
	f.Add(appendControl(nil, typeSynStream, 0, append(p, cf.headerBlock(http.Header{"Port": {"80"}})...)))
	f.Add(appendData(nil, 1, flagFin, []byte("data")))
	f.Add(appendControl(nil, typePing, 0, []byte{0, 0, 0, 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		fr := newFramer(bytes.NewReader(b))
		for range 16 {
			if _, err := fr.readFrame(); err != nil {
				return
			}
		}
	})
}

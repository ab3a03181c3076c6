package spdy

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// version is the SPDY version in every control frame (SPDY/3.1 frames
// carry 3).
const version = 3

// Control frame types.
const (
	typeSynStream    uint16 = 1
	typeSynReply     uint16 = 2
	typeRstStream    uint16 = 3
	typeSettings     uint16 = 4
	typePing         uint16 = 6
	typeGoAway       uint16 = 7
	typeHeaders      uint16 = 8
	typeWindowUpdate uint16 = 9
)

// flagFin ends the sender's half of a stream (SYN_STREAM, DATA).
const flagFin byte = 0x01

// RST_STREAM and GOAWAY status codes used here, and the bounds of what
// is read and written.
const (
	rstInvalidStream           uint32 = 2
	rstCancel                  uint32 = 5
	rstFlowControlError        uint32 = 7
	goAwayProtocolError        uint32 = 1
	maxControlFrame                   = 1 << 20 // bound on a control frame's payload read here
	frameHeaderLen                    = 8
	defaultWriteChunk                 = 32 << 10 // DATA payload per frame this side writes
	maxHeaderPairs                    = 1024
	maxHeaderNameOrValueLength        = 64 << 10
)

// frame is one decoded frame. For control frames, control is true and
// typ, flags and the fields of that type are set; a data frame has
// streamID, flags and data.
type frame struct {
	control  bool
	typ      uint16
	flags    byte
	streamID uint32
	// status (RST_STREAM, GOAWAY; the delta of WINDOW_UPDATE) and
	// pingID are the control frames' fields.
	status  uint32
	pingID  uint32
	headers http.Header
	data    []byte
}

// framer reads and writes frames on one connection; the header
// decompression context belongs to the reader, the compression context to
// the writer. Not safe for concurrent use: Conn serializes writes and
// reads from one goroutine.
type framer struct {
	r *bufio.Reader

	// block limits the decompressor's input to the current header block;
	// the zlib reader (created at the first block, as the peer's stream
	// starts there) reads through it for the life of the connection.
	block io.LimitedReader
	zr    io.ReadCloser

	zbuf bytes.Buffer
	zw   *zlib.Writer
}

func newFramer(r io.Reader) *framer {
	f := &framer{r: bufio.NewReader(r)}
	f.block.R = f.r
	zw, _ := zlib.NewWriterLevelDict(&f.zbuf, zlib.BestCompression, headerDictionary) // only errs on a bad level
	f.zw = zw
	return f
}

// readFrame reads the next frame. Errors: io.EOF at a clean end between
// frames, ErrProtocol for a malformed frame, or the reader's error.
func (f *framer) readFrame() (*frame, error) {
	var h [frameHeaderLen]byte
	if _, err := io.ReadFull(f.r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("%w: truncated frame header", ErrProtocol)
		}
		return nil, err
	}
	flags := h[4]
	length := uint32(h[5])<<16 | uint32(h[6])<<8 | uint32(h[7])
	if h[0]&0x80 == 0 {
		fr := &frame{streamID: binary.BigEndian.Uint32(h[0:4]) & 0x7fffffff, flags: flags}
		fr.data = make([]byte, length)
		if _, err := io.ReadFull(f.r, fr.data); err != nil {
			return nil, fmt.Errorf("%w: truncated data frame: %w", ErrProtocol, err)
		}
		return fr, nil
	}
	ver := binary.BigEndian.Uint16(h[0:2]) & 0x7fff
	if ver != version {
		return nil, fmt.Errorf("%w: control frame of version %d, want %d", ErrProtocol, ver, version)
	}
	if length > maxControlFrame {
		return nil, fmt.Errorf("%w: control frame of %d bytes exceeds %d", ErrProtocol, length, maxControlFrame)
	}
	fr := &frame{control: true, typ: binary.BigEndian.Uint16(h[2:4]), flags: flags}
	return fr, f.readControl(fr, length)
}

// fixedLen is the fixed part of each control frame's payload (before a
// header block, or all of it).
var fixedLen = map[uint16]uint32{typeSynStream: 10, typeSynReply: 4, typeRstStream: 8, typeSettings: 4,
	typePing: 4, typeGoAway: 8, typeHeaders: 4, typeWindowUpdate: 8}

// readControl reads the payload of the control frame fr of length bytes.
func (f *framer) readControl(fr *frame, length uint32) error {
	fixed, known := fixedLen[fr.typ]
	if !known { // unknown types are ignored, as the draft says
		_, err := io.CopyN(io.Discard, f.r, int64(length))
		return err
	}
	if length < fixed {
		return fmt.Errorf("%w: control frame type %d of %d bytes, want at least %d", ErrProtocol, fr.typ, length, fixed)
	}
	p := make([]byte, fixed)
	if _, err := io.ReadFull(f.r, p); err != nil {
		return fmt.Errorf("%w: truncated control frame: %w", ErrProtocol, err)
	}
	rest := length - fixed
	switch fr.typ {
	case typeSynStream, typeSynReply, typeHeaders:
		fr.streamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		h, err := f.readHeaderBlock(rest)
		fr.headers = h
		return err
	case typeRstStream, typeWindowUpdate:
		fr.streamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		fr.status = binary.BigEndian.Uint32(p[4:])
	case typePing:
		fr.pingID = binary.BigEndian.Uint32(p)
	case typeGoAway:
		fr.streamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		fr.status = binary.BigEndian.Uint32(p[4:])
	}
	_, err := io.CopyN(io.Discard, f.r, int64(rest)) // SETTINGS entries and any excess are not used
	return err
}

// readHeaderBlock decompresses one header block of n compressed bytes.
// The whole block must be consumed: the compression context runs on.
func (f *framer) readHeaderBlock(n uint32) (http.Header, error) {
	f.block.N = int64(n)
	if f.zr == nil {
		zr, err := zlib.NewReaderDict(&f.block, headerDictionary)
		if err != nil {
			return nil, fmt.Errorf("%w: header block: %w", ErrProtocol, err)
		}
		f.zr = zr
	}
	h, err := parseHeaderBlock(f.zr)
	if err != nil {
		return nil, err
	}
	if f.block.N != 0 {
		return nil, fmt.Errorf("%w: %d bytes of the header block left over", ErrProtocol, f.block.N)
	}
	return h, nil
}

// parseHeaderBlock reads a decompressed name/value block: a 4-byte count,
// then per pair a 4-byte length and the name, a 4-byte length and the
// value (several values separated by NUL). Names are lower case on the
// wire; they are returned canonicalized.
func parseHeaderBlock(r io.Reader) (http.Header, error) {
	readLen := func(what string, max uint32) (uint32, error) {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, fmt.Errorf("%w: header block: %s: %w", ErrProtocol, what, err)
		}
		n := binary.BigEndian.Uint32(b[:])
		if n > max {
			return 0, fmt.Errorf("%w: header block: %s %d exceeds %d", ErrProtocol, what, n, max)
		}
		return n, nil
	}
	count, err := readLen("pair count", maxHeaderPairs)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	for range count {
		var kv [2]string
		for i, what := range [2]string{"name length", "value length"} {
			n, err := readLen(what, maxHeaderNameOrValueLength)
			if err != nil {
				return nil, err
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, fmt.Errorf("%w: header block: %w", ErrProtocol, err)
			}
			kv[i] = string(b)
		}
		if kv[0] == "" {
			return nil, fmt.Errorf("%w: header block: empty name", ErrProtocol)
		}
		for _, v := range strings.Split(kv[1], "\x00") {
			h.Add(kv[0], v)
		}
	}
	return h, nil
}

// appendControl appends a control frame header and payload to b.
func appendControl(b []byte, typ uint16, flags byte, payload []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, 0x8000|version)
	b = binary.BigEndian.AppendUint16(b, typ)
	return appendLenPayload(b, flags, payload)
}

// appendData appends a data frame to b.
func appendData(b []byte, streamID uint32, flags byte, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, streamID&0x7fffffff)
	return appendLenPayload(b, flags, data)
}

func appendLenPayload(b []byte, flags byte, payload []byte) []byte {
	n := len(payload)
	b = append(b, flags, byte(n>>16), byte(n>>8), byte(n))
	return append(b, payload...)
}

// headerBlock compresses h as a header block (names lower-cased, values
// joined with NUL), continuing the writer's compression context.
func (f *framer) headerBlock(h http.Header) []byte {
	var raw []byte
	raw = binary.BigEndian.AppendUint32(raw, uint32(len(h)))
	for k, vs := range h {
		v := strings.Join(vs, "\x00")
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(k)))
		raw = append(raw, strings.ToLower(k)...)
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(v)))
		raw = append(raw, v...)
	}
	f.zbuf.Reset()
	f.zw.Write(raw) // writes to a bytes.Buffer do not fail
	f.zw.Flush()
	return bytes.Clone(f.zbuf.Bytes())
}

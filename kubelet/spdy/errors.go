package spdy

import "errors"

// Sentinel errors of the package; returned errors wrap one of them.
var (
	// ErrProtocol: the peer sent a frame that breaks SPDY/3.1 (bad version,
	// bad length, a header block that does not decompress, a stream ID
	// reused or even).
	ErrProtocol = errors.New("spdy protocol error")
	// ErrStreamReset: the stream was reset (RST_STREAM) by the peer, or by
	// this side after a flow-control violation.
	ErrStreamReset = errors.New("spdy stream reset")
	// ErrClosed: the connection or the stream's writing half is closed.
	ErrClosed = errors.New("spdy connection closed")
)

// Package spdy is the server side of a SPDY/3.1 connection as Kubernetes'
// streaming protocols use it: kubectl port-forward opens, per forwarded
// connection, a pair of client-initiated streams (an error stream and a
// data stream) over one SPDY connection, which kubectl 1.31+ tunnels
// through a WebSocket ("SPDY/3.1+portforward.k8s.io", each binary message
// carrying a piece of the SPDY byte stream).
//
// What is implemented is what such a client needs from a server: frames
// are read and written (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING,
// GOAWAY, HEADERS, WINDOW_UPDATE and DATA), header blocks are compressed
// with zlib and the SPDY/3 dictionary (one compression context per
// direction for the life of the connection), every stream the client
// opens is answered with a SYN_REPLY and handed to the caller, PINGs are
// echoed, FIN half-closes and RST_STREAM aborts a stream. The server
// never opens streams (no server push) and does not enforce flow-control
// windows (nor do the Kubernetes clients, which never wait for
// WINDOW_UPDATE).
//
// Concurrency: Conn.Serve owns the reading side and runs in one goroutine
// until the connection ends; frame writes from any goroutine are
// serialized. A Stream is read by one goroutine and written by any. Data
// received for a stream is buffered up to MaxStreamBuffer; a client that
// sends more before it is read has its stream reset (FLOW_CONTROL_ERROR).
//
// Errors wrap ErrProtocol (a malformed or oversized frame; the connection
// is ended with GOAWAY PROTOCOL_ERROR), ErrStreamReset (the peer reset the
// stream) or ErrClosed.
package spdy

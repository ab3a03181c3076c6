package cri

import "io"

// ExecRequest is a streaming exec (Exec): the command and the streams
// attached to it. The caller owns the streams; Exec only reads Stdin and
// writes Stdout and Stderr while it runs.
type ExecRequest struct {
	// Cmd is the command and its arguments; it must not be empty.
	Cmd []string
	// Stdin, when not nil, is copied to the process's standard input; its
	// EOF closes that input. Exec may still be blocked in a Read of Stdin
	// when it returns (a process that exits without reading): the caller
	// ends that Read by closing what Stdin reads from.
	Stdin io.Reader
	// Stdout and Stderr receive the process's output; nil discards it.
	// With TTY the terminal's output (both streams, with the terminal's
	// line discipline) goes to Stdout and Stderr is unused. Each is
	// written by one goroutine at a time.
	Stdout io.Writer
	Stderr io.Writer
	// TTY runs the process on a terminal.
	TTY bool
	// Resize, when not nil, carries terminal size changes (TTY only); Exec
	// stops reading it when it returns.
	Resize <-chan TerminalSize
}

// TerminalSize is a terminal's size in character cells.
type TerminalSize struct {
	Width  uint16
	Height uint16
}

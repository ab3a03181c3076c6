package lbtest

import (
	"io"
	"sync"
)

// mu guards every Balancer's log buffer (written by the process's output
// copiers, read by Log).
var mu sync.Mutex

// syncWriter writes to w under mu.
type syncWriter struct{ w io.Writer }

func (s *syncWriter) Write(p []byte) (int, error) {
	mu.Lock()
	defer mu.Unlock()
	return s.w.Write(p)
}

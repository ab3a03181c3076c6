package fake

import (
	"context"
	"time"

	"github.com/orkit/orkit/cri"
)

// subscriber is one Events stream.
type subscriber struct {
	ch chan cri.ContainerEvent
}

// Events subscribes to container events from now on. The channel is
// closed when ctx is done or the Runtime is closed. Each subscriber has a
// buffer (WithEventBuffer); events that find it full are dropped, as the
// cri.EventSource contract allows. No goroutine is started.
func (r *Runtime) Events(ctx context.Context) <-chan cri.ContainerEvent {
	s := &subscriber{ch: make(chan cri.ContainerEvent, r.opts.eventBuffer)}
	r.mu.Lock()
	if r.closed || ctx.Err() != nil {
		r.mu.Unlock()
		close(s.ch)
		return s.ch
	}
	r.subs[s] = struct{}{}
	r.mu.Unlock()
	context.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := r.subs[s]; ok {
			delete(r.subs, s)
			close(s.ch)
		}
	})
	return s.ch
}

// emitLocked sends an event to every subscriber that has room.
func (r *Runtime) emitLocked(c *container, typ cri.ContainerEventType, exitCode int32) {
	if len(r.subs) == 0 {
		return
	}
	ev := cri.ContainerEvent{ContainerID: c.status.ID, PodSandboxID: c.status.PodSandboxID, Type: typ,
		Time: time.Now(), ExitCode: exitCode}
	for s := range r.subs {
		select {
		case s.ch <- ev:
		default: // full: dropped, the subscriber relists
		}
	}
}

package containerd

import (
	"context"
	"fmt"
	"time"

	containerd "github.com/containerd/containerd"
	apievents "github.com/containerd/containerd/api/events"
	"github.com/containerd/containerd/events"
	"github.com/containerd/typeurl/v2"

	"github.com/orkit/orkit/cri"
)

// eventBuffer is each subscriber's channel capacity.
const eventBuffer = 256

// Events subscribes to container events; see cri.EventSource.
func (r *Runtime) Events(ctx context.Context) <-chan cri.ContainerEvent {
	ch := make(chan cri.ContainerEvent, eventBuffer)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		close(ch)
		return ch
	}
	r.subs[ch] = struct{}{}
	r.wg.Add(1) // under mu: Close cannot be waiting yet
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		select {
		case <-ctx.Done():
		case <-r.ctx.Done():
		}
		r.mu.Lock()
		if _, ok := r.subs[ch]; ok {
			delete(r.subs, ch)
			close(ch)
		}
		r.mu.Unlock()
	}()
	return ch
}

// publish hands ev to every subscriber whose buffer has room.
func (r *Runtime) publish(ev cri.ContainerEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ch := range r.subs {
		select {
		case ch <- ev:
		default:
			r.cfg.log.Warn("container event dropped: subscriber is behind", "type", ev.Type, "container", ev.ContainerID)
		}
	}
}

// eventLoop follows containerd's task and container events until Close,
// resubscribing (and reconciling missed exits) after the stream breaks.
// ready is closed once the first subscription is requested.
func (r *Runtime) eventLoop(ready chan<- struct{}) {
	defer r.wg.Done()
	backoff := 50 * time.Millisecond
	for attempt := 0; r.ctx.Err() == nil; attempt++ {
		sctx, cancel := context.WithCancel(r.ctx)
		evC, errC := r.client.EventService().Subscribe(sctx,
			fmt.Sprintf(`namespace==%s,topic=="/tasks/exit"`, r.cfg.namespace),
			fmt.Sprintf(`namespace==%s,topic=="/tasks/oom"`, r.cfg.namespace),
			fmt.Sprintf(`namespace==%s,topic=="/containers/delete"`, r.cfg.namespace))
		if attempt == 0 {
			close(ready)
		} else {
			r.reconcile(sctx, false)
		}
		r.follow(evC, errC, &backoff)
		cancel()
		select {
		case <-r.ctx.Done():
			return
		case <-time.After(backoff):
		}
		if backoff < 2*time.Second {
			backoff *= 2
		}
	}
}

// follow handles events until the stream ends.
func (r *Runtime) follow(evC <-chan *events.Envelope, errC <-chan error, backoff *time.Duration) {
	for {
		select {
		case env := <-evC:
			*backoff = 50 * time.Millisecond
			r.handle(env)
		case err := <-errC:
			if r.ctx.Err() == nil {
				r.cfg.log.Debug("containerd event stream ended; resubscribing", "err", err)
			}
			return
		}
	}
}

// handle reacts to one containerd event: a task exit of an app container
// makes the runtime record it (which publishes EXITED); an OOM is recorded
// and published. CREATED, STARTED and DELETED are published by the calls
// that cause them, and EXITED by whoever records the exit, so each event
// is published once, in order, even when containerd's stream was down.
func (r *Runtime) handle(env *events.Envelope) {
	if env == nil || env.Event == nil {
		return
	}
	v, err := typeurl.UnmarshalAny(env.Event)
	if err != nil {
		return
	}
	var id string
	switch e := v.(type) {
	case *apievents.TaskOOM:
		id = e.ContainerID
	case *apievents.TaskExit:
		if e.ID != e.ContainerID {
			return // an exec'd process
		}
		id = e.ContainerID
	case *apievents.ContainerDelete:
		r.forget(e.ID)
		return
	default:
		return
	}
	kind, ok := r.kindOf(id)
	if !ok || kind.sandbox {
		return
	}
	if _, isOOM := v.(*apievents.TaskOOM); isOOM {
		r.background(func(ctx context.Context) { r.markOOM(ctx, id, kind.sandboxID, env.Timestamp) })
		return
	}
	r.background(func(ctx context.Context) {
		if err := r.finalize(ctx, id); err != nil && r.ctx.Err() == nil {
			r.cfg.log.Warn("record container exit", "id", id, "err", err)
		}
	})
}

// publishFor publishes an event of container id of sandbox sb, now.
func (r *Runtime) publishFor(id, sb string, typ cri.ContainerEventType) {
	r.publish(cri.ContainerEvent{ContainerID: id, PodSandboxID: sb, Type: typ, Time: time.Now()})
}

// background runs f in a goroutine owned by the runtime.
func (r *Runtime) background(f func(ctx context.Context)) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
		defer cancel()
		f(ctx)
	}()
}

// markOOM records containerd's OOM event for container id and publishes
// it, unless the exit's recording found the OOM kill first (and published
// it then): each OOM is published once.
func (r *Runtime) markOOM(ctx context.Context, id, sandboxID string, at time.Time) {
	defer r.locks.lock(id)()
	ctr, err := r.client.LoadContainer(ctx, id)
	if err != nil {
		return
	}
	info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil || info.Labels[labelOOM] == "true" {
		return
	}
	if _, err := ctr.SetLabels(ctx, map[string]string{labelOOM: "true"}); err != nil {
		r.cfg.log.Warn("record OOM", "id", id, "err", err)
	}
	r.publish(cri.ContainerEvent{ContainerID: id, PodSandboxID: sandboxID, Type: cri.ContainerEventOOM, Time: at})
}

// kindOf returns what id is, asking containerd when it is not cached.
func (r *Runtime) kindOf(id string) (objKind, bool) {
	r.mu.Lock()
	k, ok := r.kinds[id]
	r.mu.Unlock()
	if ok {
		return k, true
	}
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	c, err := r.client.ContainerService().Get(ctx, id)
	if err != nil {
		return objKind{}, false
	}
	switch c.Labels[labelKind] {
	case kindSandbox:
		k = objKind{sandbox: true, sandboxID: id}
	case kindContainer:
		k = objKind{sandboxID: c.Labels[labelSandboxID]}
	default:
		return objKind{}, false
	}
	r.remember(id, k)
	return k, true
}

package containerd

import (
	"context"

	"time"

	tasktypes "github.com/containerd/containerd/api/types/task"
)

// recover rebuilds the runtime's in-memory view from containerd at New:
// the kind of every object, the exits that happened while no Runtime ran,
// and log copiers for running containers.
func (r *Runtime) recover(ctx context.Context) error {
	return r.reconcile(ctx, true)
}

// reconcile records the exits of stopped tasks and, with attach, restarts
// log copiers of running containers that have none.
func (r *Runtime) reconcile(ctx context.Context, attach bool) error {
	cs, err := r.client.ContainerService().List(ctx)
	if err != nil {
		return mapErr(err, "list containers")
	}
	tasks, err := r.taskStatuses(ctx, "")
	if err != nil {
		return err
	}
	for _, c := range cs {
		switch c.Labels[labelKind] {
		case kindSandbox:
			r.remember(c.ID, objKind{sandbox: true, sandboxID: c.ID})
			continue
		case kindContainer:
			r.remember(c.ID, objKind{sandboxID: c.Labels[labelSandboxID]})
		default:
			continue
		}
		t := tasks[c.ID]
		switch {
		case t == nil:
		case t.Status == tasktypes.Status_STOPPED:
			if err := r.finalize(ctx, c.ID); err != nil {
				r.cfg.log.Warn("record exit on recovery", "id", c.ID, "err", err)
			}
		case attach && t.Status == tasktypes.Status_RUNNING:
			r.attachLogs(c.ID)
		}
	}
	return nil
}

// attachLogs restarts the log copier of a running container.
func (r *Runtime) attachLogs(id string) {
	r.mu.Lock()
	_, has := r.logs[id]
	r.mu.Unlock()
	if has {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	_, rec, err := r.containerRecord(ctx, id)
	if err != nil {
		r.cfg.log.Warn("reattach logs", "id", id, "err", err)
		return
	}
	if _, err := r.startLogs(id, rec); err != nil {
		r.cfg.log.Warn("reattach logs", "id", id, "err", err)
	}
}

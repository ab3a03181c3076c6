package containerd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"time"

	tasktypes "github.com/containerd/containerd/api/types/task"
)

// recover rebuilds the runtime's in-memory view from containerd at New:
// the kind of every object, the exits that happened while no Runtime ran,
// and log copiers for running containers.
func (r *Runtime) recover(ctx context.Context) error {
	if err := r.reconcile(ctx, true); err != nil {
		return err
	}
	return r.removeOrphans(ctx)
}

// removeOrphans removes network namespaces, sandbox files (with their
// image volumes) and FIFO directories whose containerd container is gone (left by a crash between
// steps). Only one Runtime may use a state directory at a time.
func (r *Runtime) removeOrphans(ctx context.Context) error {
	cs, err := r.client.ContainerService().List(ctx)
	if err != nil {
		return mapErr(err, "list containers")
	}
	live := make(map[string]bool, len(cs))
	for _, c := range cs {
		live[c.ID] = true
	}
	for _, sub := range []string{netnsDir, sandboxesDir, fifoDir} {
		entries, err := os.ReadDir(filepath.Join(r.cfg.stateDir, sub))
		if err != nil {
			return fmt.Errorf("state dir: %w", err)
		}
		for _, e := range entries {
			if live[e.Name()] {
				continue
			}
			r.cfg.log.Info("removing orphaned runtime state", "kind", sub, "id", e.Name())
			var err error
			switch sub {
			case netnsDir:
				err = removeNetNS(filepath.Join(r.cfg.stateDir, sub, e.Name()))
			case sandboxesDir:
				// Image volumes first: RemoveAll must not walk into them.
				if err = r.releaseImageVolumes(ctx, e.Name()); err == nil {
					err = os.RemoveAll(filepath.Join(r.cfg.stateDir, sub, e.Name()))
				}
			default:
				err = os.RemoveAll(filepath.Join(r.cfg.stateDir, sub, e.Name()))
			}
			if err != nil {
				r.cfg.log.Warn("remove orphaned runtime state", "kind", sub, "id", e.Name(), "err", err)
			}
		}
	}
	// Views of image volumes whose sandbox is gone (their mounts went with
	// a reboot, or above).
	if err := r.removeImageViews(ctx, func(sb string) bool { return !live[sb] }); err != nil {
		r.cfg.log.Warn("remove orphaned image volume views", "err", err)
	}
	return nil
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
	c, rec, err := r.containerRecord(ctx, id)
	if err != nil {
		r.cfg.log.Warn("reattach logs", "id", id, "err", err)
		return
	}
	stdinClosed := c.Labels[labelStdinDone] == "true"
	if stdinClosed {
		rec.Config.Stdin = false // no FIFO end to open: nobody reads it any more
	}
	lc, err := r.startLogs(id, rec)
	if err != nil {
		r.cfg.log.Warn("reattach logs", "id", id, "err", err)
		return
	}
	if stdinClosed && lc.stdin == nil {
		lc.stdin = &stdinPipe{w: nopWriteCloser{}, closed: true}
	}
}

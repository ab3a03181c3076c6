package apiserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/store"
)

// Start rebuilds both bitmaps from the Services that exist (what a
// deleted Service held while the server was down is released, what an
// existing one holds is marked), then starts the goroutine that releases
// what Services give up and sweeps for leaks; it stops when ctx is done.
// Call it once, after the server's store is open; creates and updates
// wait in Validate until the repair is done.
func (a *ServiceAllocator) Start(ctx context.Context) error {
	rev, err := a.repair(ctx)
	if err != nil {
		return err
	}
	close(a.repaired)
	go a.run(ctx, rev)
	return nil
}

// listUsed lists the Services and returns the offsets they hold, and the
// revision of the list. Two Services holding the same address are logged.
func (a *ServiceAllocator) listUsed(ctx context.Context) (ips, ports map[int]bool, rev int64, err error) {
	ips, ports = map[int]bool{}, map[int]bool{}
	opts := store.ListOptions{Limit: 500}
	for {
		res, err := a.svcs.store.List(ctx, a.svcs.KeyPrefix(""), opts)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("service allocator: list services: %w", err)
		}
		for _, kv := range res.KVs {
			obj, err := a.svcs.Decode(kv)
			if err != nil {
				a.log.Warn("service allocator: undecodable service skipped", "key", kv.Key, "err", err)
				continue
			}
			i, p := a.usedBy(obj.(*core.Service))
			for _, o := range i {
				if ips[o] {
					a.log.Warn("service allocator: cluster IP held by two services", "ip", a.ipAt(o), "key", kv.Key)
				}
				ips[o] = true
			}
			for _, o := range p {
				ports[o] = true
			}
		}
		rev = res.Revision
		if res.Continue == "" {
			return ips, ports, rev, nil
		}
		opts.Continue, opts.Revision = res.Continue, res.Revision
	}
}

// repair sets both bitmaps to exactly what the Services hold.
func (a *ServiceAllocator) repair(ctx context.Context) (int64, error) {
	ips, ports, rev, err := a.listUsed(ctx)
	if err != nil {
		return 0, err
	}
	for _, x := range []struct {
		r    *bitRange
		used map[int]bool
	}{{a.ips, ips}, {a.ports, ports}} {
		err := x.r.updateRaw(ctx, true, func(bits []byte) (bool, error) {
			clear(bits)
			for o := range x.used {
				set(bits, o)
			}
			return true, nil
		})
		if err != nil {
			return 0, fmt.Errorf("service allocator: repair: %w", err)
		}
	}
	a.log.Info("service allocator: repaired", "clusterIPs", len(ips), "nodePorts", len(ports))
	return rev, nil
}

// run watches Services from rev and sweeps for leaks until ctx is done.
func (a *ServiceAllocator) run(ctx context.Context, rev int64) {
	tick := time.NewTicker(a.sweep)
	defer tick.Stop()
	var suspects [2]map[int]bool
	for ctx.Err() == nil {
		events, err := a.svcs.store.Watch(ctx, a.svcs.KeyPrefix(""), rev)
		if err != nil {
			if isStoreGone(err) || ctx.Err() != nil {
				return
			}
			if rev, err = a.repair(ctx); err != nil {
				a.log.Warn("service allocator: repair failed", "err", err)
				rev = 0
			}
			continue
		}
		rev = a.follow(ctx, events, tick.C, &suspects, rev)
	}
}

// follow applies events until the watch ends, sweeping on each tick; it
// returns the revision to resume from (0 after a failed resume).
func (a *ServiceAllocator) follow(ctx context.Context, events <-chan store.Event, tick <-chan time.Time, suspects *[2]map[int]bool, rev int64) int64 {
	for {
		select {
		case <-ctx.Done():
			return rev
		case <-tick:
			suspects[0] = a.sweepOnce(ctx, a.ips, suspects[0], true)
			suspects[1] = a.sweepOnce(ctx, a.ports, suspects[1], false)
		case ev, ok := <-events:
			if !ok {
				return rev
			}
			if ev.Err != nil {
				if errors.Is(ev.Err, store.ErrTooOld) {
					return 0 // resume from now; the next sweeps catch what was missed
				}
				return rev
			}
			if ev.Type == store.EventProgress || ev.Prev == nil {
				rev = max(rev, ev.Revision)
				continue
			}
			a.releaseChange(ctx, ev)
			rev = ev.Revision
		}
	}
}

// releaseChange releases what the previous value of a changed or deleted
// Service held and the new value does not.
func (a *ServiceAllocator) releaseChange(ctx context.Context, ev store.Event) {
	prev, err := a.svcs.Decode(*ev.Prev)
	if err != nil {
		return
	}
	pi, pp := a.usedBy(prev.(*core.Service))
	var ni, np []int
	if ev.Type == store.EventPut {
		if cur, err := a.svcs.Decode(ev.KV); err == nil {
			ni, np = a.usedBy(cur.(*core.Service))
		}
	}
	if err := a.ips.release(ctx, minus(pi, ni)); err != nil {
		a.log.Warn("service allocator: release cluster IP", "err", err)
	}
	if err := a.ports.release(ctx, minus(pp, np)); err != nil {
		a.log.Warn("service allocator: release node ports", "err", err)
	}
}

// sweepOnce releases offsets set in r that no Service holds and that were
// already suspects in the last sweep (an allocation between admission and
// the store write lives far shorter than a sweep interval). It returns
// this sweep's suspects.
func (a *ServiceAllocator) sweepOnce(ctx context.Context, r *bitRange, last map[int]bool, isIP bool) map[int]bool {
	ips, ports, _, err := a.listUsed(ctx)
	if err != nil {
		return last
	}
	used := ports
	if isIP {
		used = ips
	}
	bits, err := r.snapshot(ctx)
	if err != nil {
		return last
	}
	now, leaked := map[int]bool{}, []int(nil)
	for o := range r.size {
		if isSet(bits, o) && !used[o] {
			now[o] = true
			if last[o] {
				leaked = append(leaked, o)
			}
		}
	}
	if len(leaked) > 0 {
		a.log.Info("service allocator: releasing leaked allocations", "range", r.name, "count", len(leaked))
		_ = r.release(ctx, leaked)
	}
	return now
}

func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		keep := true
		for _, y := range b {
			if x == y {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}

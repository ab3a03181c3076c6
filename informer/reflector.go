package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// DefaultPageSize is how many objects the reflector asks for per list page.
const DefaultPageSize = 500

// Sink receives what a Reflector learns. Replace gets a complete list (to
// diff against the cache); Apply gets one watch event (Added, Modified or
// Deleted). The Informer is the Sink; a Sink error is logged and the
// object skipped.
type Sink[T any] interface {
	Replace(items []T, resourceVersion string) error
	Apply(ev Event[T]) error
}

// ReflectorConfig tunes a Reflector; zero values mean the defaults.
type ReflectorConfig[T any] struct {
	// PageSize is the list page size; default DefaultPageSize.
	PageSize int64
	// Transform is applied to every object before the Sink sees it; an
	// object it fails on is skipped (and logged).
	Transform func(T) (T, error)
	// InitialBackoff and MaxBackoff bound the wait between failed
	// attempts (doubling, with jitter); defaults 100 ms and 30 s.
	InitialBackoff, MaxBackoff time.Duration
	// WatchTimeout asks the server to end each watch after a random time
	// between WatchTimeout and twice it (spreading reconnects); default 5 min.
	WatchTimeout time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Name is used in log lines (e.g. "configmaps").
	Name string
}

// Reflector keeps a Sink in step with the server: it lists (paginated),
// then watches from the list's resourceVersion with bookmarks. A dropped
// watch resumes from the last resourceVersion seen; a 410 (reason Expired
// or Gone), as a status or an ERROR frame, makes it list again. Everything runs on the
// goroutine that calls Run.
type Reflector[T meta.Object] struct {
	lw   ListerWatcher[T]
	sink Sink[T]
	cfg  ReflectorConfig[T]

	mu     sync.Mutex
	lastRV string
	stats  ReflectorStats
}

// ReflectorStats counts what a Reflector did, for tests and metrics.
type ReflectorStats struct {
	Lists, Relists, Watches, WatchErrors, GoneErrors, Events, Bookmarks int64
}

// NewReflector returns a Reflector feeding sink from lw.
func NewReflector[T meta.Object](lw ListerWatcher[T], sink Sink[T], cfg ReflectorConfig[T]) *Reflector[T] {
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.WatchTimeout <= 0 {
		cfg.WatchTimeout = 5 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Reflector[T]{lw: lw, sink: sink, cfg: cfg}
}

// LastResourceVersion returns the resourceVersion the reflector has
// reached (of the last list, event or bookmark).
func (r *Reflector[T]) LastResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// Stats returns a snapshot of the counters.
func (r *Reflector[T]) Stats() ReflectorStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

func (r *Reflector[T]) setRV(rv string) {
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
}

func (r *Reflector[T]) count(f func(*ReflectorStats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}

// Run lists and watches until ctx is done, then returns ctx.Err().
func (r *Reflector[T]) Run(ctx context.Context) error {
	backoff := r.cfg.InitialBackoff
	needList := true
	for ctx.Err() == nil {
		if needList {
			if err := r.list(ctx); err != nil {
				if ctx.Err() == nil {
					r.cfg.Logger.Warn("informer: list failed", "resource", r.cfg.Name, "err", err)
				}
				backoff = r.sleep(ctx, backoff)
				continue
			}
			needList = false
		}
		established, err := r.watch(ctx)
		switch {
		case ctx.Err() != nil:
		case tooOld(err):
			r.count(func(s *ReflectorStats) { s.GoneErrors++; s.Relists++ })
			r.cfg.Logger.Info("informer: resourceVersion too old, relisting", "resource", r.cfg.Name, "err", err)
			needList = true
		case err != nil:
			r.count(func(s *ReflectorStats) { s.WatchErrors++ })
			r.cfg.Logger.Warn("informer: watch failed", "resource", r.cfg.Name, "err", err)
			backoff = r.sleep(ctx, backoff)
		default: // the stream ended or was cut: resume from lastRV
			if established {
				backoff = r.cfg.InitialBackoff
			}
			backoff = r.sleep(ctx, backoff)
		}
	}
	return ctx.Err()
}

// sleep waits d with ±25% jitter (or until ctx is done) and returns the
// next backoff.
func (r *Reflector[T]) sleep(ctx context.Context, d time.Duration) time.Duration {
	j := time.Duration(float64(d) * (0.75 + rand.Float64()/2))
	t := time.NewTimer(j)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return min(2*d, r.cfg.MaxBackoff)
}

// list reads every page and hands the whole list to the sink. An expired
// continue token (410) restarts the list; after three expiries it lists
// in one request.
func (r *Reflector[T]) list(ctx context.Context) error {
	r.count(func(s *ReflectorStats) { s.Lists++ })
	var (
		items []T
		rv    string
	)
	limit := r.cfg.PageSize
	for attempt := 0; ; attempt++ {
		var err error
		items, rv, err = r.listPages(ctx, limit)
		if err == nil {
			break
		}
		if !tooOld(err) || attempt >= 3 {
			return err
		}
		if attempt == 2 {
			limit = 0
		}
	}
	if err := r.sink.Replace(items, rv); err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	r.setRV(rv)
	return nil
}

func (r *Reflector[T]) listPages(ctx context.Context, limit int64) ([]T, string, error) {
	var all []T
	opts := ListOptions{Limit: limit}
	for {
		page, rv, cont, err := r.lw.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		for _, obj := range page {
			if obj, ok := r.transform(obj); ok {
				all = append(all, obj)
			}
		}
		if cont == "" {
			return all, rv, nil
		}
		opts.Continue = cont
	}
}

func (r *Reflector[T]) transform(obj T) (T, bool) {
	if r.cfg.Transform == nil {
		return obj, true
	}
	out, err := r.cfg.Transform(obj)
	if err != nil {
		r.cfg.Logger.Error("informer: transform failed, object skipped", "resource", r.cfg.Name,
			"key", KeyOf(obj), "err", fmt.Errorf("%w: %w", ErrTransform, err))
		return out, false
	}
	return out, true
}

// tooOld reports whether err says the resourceVersion (or continue token)
// asked for is older than the server keeps: 410 reason Expired, as
// kube-apiserver answers, or reason Gone. Either means list again, as in
// client-go's reflector.
func tooOld(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// watch follows one watch stream. established says the server accepted
// it; err is the failure (nil when the stream merely ended).
func (r *Reflector[T]) watch(ctx context.Context) (established bool, err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timeout := r.cfg.WatchTimeout + time.Duration(rand.Int64N(int64(r.cfg.WatchTimeout)))
	r.count(func(s *ReflectorStats) { s.Watches++ })
	ch, err := r.lw.Watch(wctx, ListOptions{
		ResourceVersion:     r.LastResourceVersion(),
		AllowWatchBookmarks: true,
		TimeoutSeconds:      int64(timeout / time.Second),
	})
	if err != nil {
		return false, err
	}
	for ev := range ch {
		if err := r.handle(ev); err != nil {
			return true, err
		}
	}
	return true, nil
}

// handle applies one event, advancing the resourceVersion.
func (r *Reflector[T]) handle(ev Event[T]) error {
	switch ev.Type {
	case Error:
		if ev.Err == nil {
			return errors.New("watch ERROR event without a cause")
		}
		return ev.Err
	case Bookmark:
		r.count(func(s *ReflectorStats) { s.Bookmarks++ })
		if !isNil(ev.Object) {
			if rv := ev.Object.GetObjectMeta().ResourceVersion; rv != "" {
				r.setRV(rv)
			}
		}
		return nil
	case Added, Modified, Deleted:
	default:
		return fmt.Errorf("%w: unknown watch event type %q", ErrDecode, ev.Type)
	}
	r.count(func(s *ReflectorStats) { s.Events++ })
	if err := validObject(ev.Object); err != nil {
		r.cfg.Logger.Error("informer: watch event skipped", "resource", r.cfg.Name, "type", ev.Type, "err", err)
		return nil
	}
	rv := ev.Object.GetObjectMeta().ResourceVersion
	if obj, ok := r.transform(ev.Object); ok {
		ev.Object = obj
		if err := r.sink.Apply(ev); err != nil {
			r.cfg.Logger.Error("informer: event not applied", "resource", r.cfg.Name, "type", ev.Type, "err", err)
		}
	}
	if rv != "" {
		r.setRV(rv)
	}
	return nil
}

package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// handleWatch streams a watch from the watch cache as newline-separated
// {"type":..., "object":...} frames (a Table per frame when asked).
// resourceVersion "" or "0" starts with the current objects as ADDED;
// a resourceVersion older than the cache's history gets 410 Gone; one newer
// than the cache is waited for briefly. timeoutSeconds ends the watch.
func (s *Server) handleWatch(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	f, err := parseFilter(req)
	if err != nil {
		writeError(w, err)
		return
	}
	q := req.Query
	var rv int64
	if v := q.Get("resourceVersion"); v != "" && v != "0" {
		if rv, err = strconv.ParseInt(v, 10, 64); err != nil {
			writeError(w, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", v)))
			return
		}
	}
	timeout := s.cfg.MaxWatchTimeout
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, apierrors.NewBadRequest(fmt.Sprintf("invalid timeoutSeconds %q", v)))
			return
		}
		if d := time.Duration(n) * time.Second; d > 0 && d < timeout {
			timeout = d
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cache := req.resource.cache
	if rv > cache.Revision() {
		wctx, wcancel := context.WithTimeout(ctx, 3*time.Second)
		err := cache.waitFor(wctx, rv)
		wcancel()
		if err != nil {
			writeError(w, apierrors.NewTimeout(fmt.Sprintf("Too large resource version: %d, current: %d", rv, cache.Revision())))
			return
		}
	}
	bookmarks := q.Get("allowWatchBookmarks") == "true"
	initial, watcher, err := cache.Watch(req.Info.Namespace, f, rv, bookmarks, s.cfg.WatchBuffer)
	if errors.Is(err, ErrResourceVersionTooOld) {
		writeError(w, apierrors.NewResourceExpired(err.Error()))
		return
	} else if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	defer cache.Unwatch(watcher)
	s.streamWatch(ctx, w, r, req, initial, watcher)
}

func (s *Server) streamWatch(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request, initial []WatchEvent, watcher *cacheWatcher) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	table := wantsTable(r)
	enc := watchEncoder{res: req.resource, table: table, includeObject: includeObject(r)}
	var frame []byte // reused: the response writer copies or sends before Write returns
	write := func(ev WatchEvent) error {
		var err error
		if frame, err = enc.encode(frame[:0], ev); err != nil {
			return err
		}
		_, err = w.Write(frame)
		return err
	}
	for _, ev := range initial {
		if write(ev) != nil {
			return
		}
	}
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-watcher.done:
			// Deliver what was queued before the watcher was ended, then
			// close: the client resumes from the last resourceVersion.
			for {
				select {
				case ev := <-watcher.ch:
					if write(ev) != nil {
						return
					}
				default:
					if flusher != nil {
						flusher.Flush()
					}
					return
				}
			}
		case ev := <-watcher.ch:
			if write(ev) != nil {
				return
			}
			// Write whatever else is already queued before flushing.
			for n := len(watcher.ch); n > 0; n-- {
				if write(<-watcher.ch) != nil {
					return
				}
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// watchEncoder turns watch events into wire frames.
type watchEncoder struct {
	res           *served
	table         bool
	includeObject string
}

// encode appends the frame of ev to dst. An object's frame is built
// around its cached wire JSON (valid and compact, as json.Marshal would
// write it) without encoding it again.
func (e watchEncoder) encode(dst []byte, ev WatchEvent) ([]byte, error) {
	var obj []byte
	switch {
	case ev.Type == meta.Bookmark:
		b, err := json.Marshal(map[string]any{
			"kind": e.res.Type.Kind.Kind, "apiVersion": e.res.Type.Kind.GroupVersion().String(),
			"metadata": map[string]string{"resourceVersion": strconv.FormatInt(ev.RV, 10)},
		})
		if err != nil {
			return dst, err
		}
		obj = b
	case e.table:
		b, err := json.Marshal(e.res.table().Convert([]meta.Object{ev.Object.object()}, "", "", e.includeObject))
		if err != nil {
			return dst, err
		}
		obj = b
	default:
		obj = ev.Object.raw
	}
	dst = append(dst, `{"type":`...)
	switch ev.Type {
	case meta.Added, meta.Modified, meta.Deleted, meta.Bookmark: // plain words
		dst = append(append(append(dst, '"'), ev.Type...), '"')
	default:
		typ, err := json.Marshal(ev.Type)
		if err != nil {
			return dst, err
		}
		dst = append(dst, typ...)
	}
	dst = append(dst, `,"object":`...)
	dst = append(dst, obj...)
	return append(dst, "}\n"...), nil
}

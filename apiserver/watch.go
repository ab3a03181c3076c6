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
// {"type":..., "object":...} frames (a Table per frame when asked), with
// kube-apiserver's semantics of resourceVersion and sendInitialEvents:
//
//   - sendInitialEvents=true (a watch-list, with
//     resourceVersionMatch=NotOlderThan) starts with every selected object
//     as ADDED and, with allowWatchBookmarks, a BOOKMARK annotated
//     k8s.io/initial-events-end at the revision they reflect: for
//     resourceVersion "" a consistent read (the cache is first brought up
//     to the store's current revision), for "0" the cache as it is, for N
//     at least N (never 410);
//   - sendInitialEvents=false starts with the changes after N, or from
//     now for "" and "0";
//   - without sendInitialEvents, "" (consistent) and "0" start with the
//     current objects as ADDED, N with the changes after N.
//
// A resourceVersion older than the cache's history gets 410 Gone; one the
// cache has not reached in 3 s gets 504 "Too large resource version".
// timeoutSeconds ends the watch.
func (s *Server) handleWatch(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	f, err := parseFilter(req)
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := parseWatchParams(req.Query, s.cfg.MaxWatchTimeout)
	if err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	if run := s.runContext(); run != nil {
		// A watch is long-running: it ends when the server stops, not
		// only when its client goes (http.Server.Shutdown waits for it).
		defer context.AfterFunc(run, cancel)()
	}
	cache := req.resource.cache
	opts := WatchOptions{Bookmarks: p.bookmarks, Buffer: s.cfg.WatchBuffer}
	switch {
	case p.rv == "":
		err = s.waitConsistent(ctx, req)
	case p.rvNum > 0:
		err = waitRevision(ctx, cache, p.rvNum)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	switch {
	case p.initialEvents():
		opts.Start = StartWithState
		opts.InitialEventsEnd = p.sendInitialEvents != nil
	case p.rvNum == 0:
		opts.Start = StartNow
	default:
		opts.Start, opts.ResourceVersion = StartAfter, p.rvNum
	}
	initial, watcher, err := cache.WatchWith(req.Info.Namespace, f, opts)
	if errors.Is(err, ErrResourceVersionTooOld) {
		writeError(w, apierrors.NewResourceExpired(err.Error()))
		return
	} else if errors.Is(err, ErrCacheStopped) {
		writeError(w, apierrors.NewServiceUnavailable("apiserver is shutting down"))
		return
	} else if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	defer cache.Unwatch(watcher)
	s.streamWatch(ctx, w, r, req, initial, watcher)
}

// freshnessWait bounds how long a read waits for the watch cache to reach
// a revision, as kube-apiserver's watch cache does (3 s).
const freshnessWait = 3 * time.Second

// waitConsistent brings the resource's watch cache up to the store's
// current revision, so what it serves next is a consistent read.
func (s *Server) waitConsistent(ctx context.Context, req *Request) error {
	rev, err := req.resource.storage.store.Revision(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("read the current revision: %w", err))
	}
	return waitRevision(ctx, req.resource.cache, rev)
}

// waitRevision waits up to freshnessWait for cache to reach rv; then it is
// kube-apiserver's 504 "Too large resource version".
func waitRevision(ctx context.Context, cache *WatchCache, rv int64) error {
	if rv <= cache.Revision() {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, freshnessWait)
	defer cancel()
	if err := cache.waitFor(wctx, rv); err != nil {
		if ctx.Err() != nil {
			return apierrors.NewTimeout("request did not complete within requested timeout")
		}
		return apierrors.NewTooLargeResourceVersion(rv, cache.Revision())
	}
	return nil
}

func (s *Server) streamWatch(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request, initial []WatchEvent, watcher *cacheWatcher) {
	flusher, _ := w.(http.Flusher)
	enc := watchEncoder{res: req.resource, as: req.as, includeObject: includeObject(r)}
	enc.protobuf = req.as.Kind == "" && wantsProtobuf(w) && hasProtobuf(req.resource)
	if enc.protobuf {
		w.Header().Set("Content-Type", protobufStreamType)
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	var frame []byte // reused: the response writer copies or sends before Write returns
	write := func(ev WatchEvent) error {
		var err error
		if frame, err = enc.encode(frame[:0], ev); err != nil {
			// The stream ends; the client resumes from its last event.
			s.log.Warn("watch: event not encodable", "resource", req.resource.gr().String(), "err", err)
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
	as            responseAs // the events' objects as Tables or PartialObjectMetadata
	includeObject string
	protobuf      bool // frames are protobuf WatchEvents (encoding_protobuf.go)
}

// encode appends the frame of ev to dst. An object's frame is built
// around its cached wire JSON (valid and compact, as json.Marshal would
// write it) without encoding it again.
func (e watchEncoder) encode(dst []byte, ev WatchEvent) ([]byte, error) {
	var obj []byte
	switch {
	case ev.Type == meta.Bookmark:
		md := map[string]any{"resourceVersion": strconv.FormatInt(ev.RV, 10)}
		if ev.InitialEventsEnd {
			md["annotations"] = map[string]string{InitialEventsAnnotation: "true"}
		}
		b, err := json.Marshal(map[string]any{
			"kind": e.res.Type.Kind.Kind, "apiVersion": e.res.Type.Kind.GroupVersion().String(),
			"metadata": md,
		})
		if err != nil {
			return dst, err
		}
		obj = b
	case e.as.Kind == asTable:
		b, err := json.Marshal(e.res.asTable(e.as, []meta.Object{ev.Object.object()}, "", "", e.includeObject))
		if err != nil {
			return dst, err
		}
		obj = b
	case e.as.Kind == asPartial:
		b, err := json.Marshal(partialMetadata(ev.Object.object(), e.as.apiVersion()))
		if err != nil {
			return dst, err
		}
		obj = b
	default:
		obj = ev.Object.raw
	}
	if e.protobuf {
		return e.appendProtobuf(dst, ev, obj)
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

package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
)

// cachedObject is one object as the watch cache holds it. It never
// changes after it is made (its lazily decoded form is set once, under
// decodeOnce): readers share it without copying.
type cachedObject struct {
	key         string
	raw         []byte // wire JSON, resourceVersion included
	labels      labels.Set
	fields      objectFields
	rv          int64
	initialized bool
	// decoded is the object. Kinds whose selectable fields are all in the
	// metadata decode it from raw on first use (most of their objects are
	// only ever sent as raw); the others have it from the start.
	decodeOnce sync.Once
	decoded    meta.Object
	cache      *WatchCache  // decodes raw; nil when decoded is set at once
	pb         protobufSlot // the protobuf form, for protobuf clients (protobufOf)
}

// newDecodedObject returns a cached object for an already decoded obj.
func newDecodedObject(key string, obj meta.Object, raw []byte, fs fields.Set, rv int64) *cachedObject {
	m := obj.GetObjectMeta()
	return &cachedObject{key: key, decoded: obj, raw: raw, labels: labels.Set(m.Labels), fields: compactFields(fs), rv: rv, initialized: m.IsInitialized()}
}

// objectFields are an object's selectable fields as a list: kinds have
// two or three, pods ten, and a map per object (and per version the
// history keeps) cost several times the bytes. It is a fields.Fields.
type objectFields []objectField

type objectField struct{ name, value string }

func compactFields(fs fields.Set) objectFields {
	out := make(objectFields, 0, len(fs))
	for k, v := range fs {
		out = append(out, objectField{k, v})
	}
	return out
}

// Has implements fields.Fields.
func (f objectFields) Has(name string) bool {
	for _, x := range f {
		if x.name == name {
			return true
		}
	}
	return false
}

// Get implements fields.Fields.
func (f objectFields) Get(name string) string {
	for _, x := range f {
		if x.name == name {
			return x.value
		}
	}
	return ""
}

// set returns f as a fields.Set.
func (f objectFields) set() fields.Set {
	out := make(fields.Set, len(f))
	for _, x := range f {
		out[x.name] = x.value
	}
	return out
}

// object returns the decoded object, decoding it on first use. A value
// whose metadata decoded but whose body does not (written by another
// version with other field types) is logged and returned as far as it
// decoded.
func (o *cachedObject) object() meta.Object {
	o.decodeOnce.Do(func() {
		if o.decoded != nil {
			return
		}
		st := o.cache.storage
		obj := st.typ.New()
		if err := json.Unmarshal(o.raw, obj); err != nil {
			o.cache.log.Error("watch cache: object only partly decodable", "resource", st.gr.String(), "key", o.key, "err", err)
		}
		obj.GetTypeMeta().SetGroupVersionKind(st.typ.Kind)
		obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(o.rv, 10)
		o.decoded = obj
	})
	return o.decoded
}

// cacheEvent is one change of the resource, kept in the cache's history.
type cacheEvent struct {
	typ  string        // meta.Added, meta.Modified or meta.Deleted
	obj  *cachedObject // the new state; for Deleted, the last state
	prev *cachedObject // the state before, nil on Added
	rv   int64
}

// Filter decides which objects a list or watch sees.
type Filter struct {
	Label                labels.Selector
	Field                fields.Selector
	IncludeUninitialized bool
}

// selects reports whether f has a label or field selector.
func (f Filter) selects() bool {
	return f.Label != nil && !f.Label.Empty() || f.Field != nil && !f.Field.Empty()
}

func (f Filter) matches(o *cachedObject) bool {
	if o == nil {
		return false
	}
	if !f.IncludeUninitialized && !o.initialized {
		return false
	}
	if f.Label != nil && !f.Label.Matches(o.labels) {
		return false
	}
	return f.Field == nil || f.Field.Matches(o.fields)
}

// WatchCache holds every object of one resource in memory, fed by one
// store watch, and serves lists and watches from memory: every watcher gets
// its events through its own buffered channel, filtered by its selectors,
// and a watcher that does not keep up is ended (it reconnects from its last
// resourceVersion) rather than slowing the others. History of the last
// HistorySize events lets watchers resume; older resourceVersions get 410.
type WatchCache struct {
	storage    *Storage
	fieldsF    FieldsFunc
	fieldsJSON FieldsFromJSONFunc // set before Run, with fieldsF
	history    int
	log        *slog.Logger

	mu      sync.RWMutex
	objects map[string]*cachedObject
	events  []cacheEvent // ring of recent events, oldest first after start
	start   int          // index of the oldest event in events
	count   int
	rv      int64 // revision the cache reflects
	oldest  int64 // the oldest rv a watcher may resume from
	// compacted is the store's compacted revision as the server's
	// compactor reported it: watches from below it expire too.
	compacted int64
	watchers  map[*cacheWatcher]struct{}
	// stopped is set when Run returns: nothing feeds the cache any more,
	// so new watchers are refused rather than left waiting forever.
	stopped bool
	// index maps the value of indexField to the keys holding it.
	indexField string
	index      map[string]map[string]*cachedObject
	synced     chan struct{}
	rvCond     *sync.Cond
	// changes counts the changes to objects (events applied, relists); it
	// moves only after the change is visible to readers.
	changes atomic.Int64
	// primed holds what this process's writers know of values they are
	// writing (Storage primes them), so apply need not decode them.
	primed primer
}

// NewWatchCache makes the cache for s; Run fills and feeds it.
func NewWatchCache(s *Storage, fieldsF FieldsFunc, historySize int, log *slog.Logger) *WatchCache {
	if historySize <= 0 {
		historySize = 10000
	}
	c := &WatchCache{
		storage:  s,
		fieldsF:  fieldsF,
		history:  historySize,
		log:      log,
		objects:  map[string]*cachedObject{},
		events:   make([]cacheEvent, min(historySize, initialHistory)),
		watchers: map[*cacheWatcher]struct{}{},
		synced:   make(chan struct{}),
	}
	c.rvCond = sync.NewCond(c.mu.RLocker())
	return c
}

// Synced is closed once the cache holds a complete list.
func (c *WatchCache) Synced() <-chan struct{} { return c.synced }

// Run lists the resource, then follows the store's watch until ctx is done,
// relisting when the watch ends. It returns when ctx is done.
func (c *WatchCache) Run(ctx context.Context) {
	defer c.stop()
	for ctx.Err() == nil {
		err := c.listAndWatch(ctx)
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("watch cache relisting", "resource", c.storage.gr.String(), "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *WatchCache) listAndWatch(ctx context.Context) error {
	objs, rev, err := c.listAll(ctx)
	if err != nil {
		return err
	}
	c.replace(objs, rev)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := c.storage.store.Watch(wctx, c.storage.prefix, rev)
	if err != nil {
		return err
	}
	for ev := range ch {
		if ev.Err != nil {
			return ev.Err
		}
		if err := c.apply(ev); err != nil {
			c.log.Error("watch cache: bad event", "resource", c.storage.gr.String(), "key", ev.KV.Key, "err", err)
		}
	}
	return ctx.Err()
}

func (c *WatchCache) listAll(ctx context.Context) (map[string]*cachedObject, int64, error) {
	out := map[string]*cachedObject{}
	opts := store.ListOptions{Limit: 5000}
	var rev int64
	for {
		res, err := c.storage.store.List(ctx, c.storage.prefix, opts)
		if err != nil {
			return nil, 0, err
		}
		rev = res.Revision
		for _, kv := range res.KVs {
			o, err := c.makeObject(kv)
			if err != nil {
				c.log.Error("watch cache: undecodable object", "key", kv.Key, "err", err)
				continue
			}
			out[kv.Key] = o
		}
		if res.Continue == "" {
			return out, rev, nil
		}
		opts.Continue = res.Continue
	}
}

// makeObject turns a stored value into a cached object. For kinds whose
// selectable fields are all in the metadata, or can be read from the JSON
// (fieldsJSON), only those are decoded now (about half the work of
// decoding a 1 KiB ConfigMap or a pod); the object itself waits for its
// first reader.
func (c *WatchCache) makeObject(kv store.KV) (*cachedObject, error) {
	var (
		m     *meta.ObjectMeta
		extra fields.Set
	)
	switch {
	case c.storage.view != nil, c.fieldsF != nil && c.fieldsJSON == nil:
		// A view's values are another kind: converted at once.
		return c.makeDecodedObject(kv)
	case c.fieldsJSON != nil:
		var err error
		if m, extra, err = c.fieldsJSON(kv.Value); err != nil {
			return nil, fmt.Errorf("decode %s fields at %q: %w", c.storage.gr, kv.Key, err)
		}
	default:
		var sm struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(kv.Value, &sm); err != nil {
			return nil, fmt.Errorf("decode %s metadata at %q: %w", c.storage.gr, kv.Key, err)
		}
		m = &sm.Metadata
	}
	// Unmarshal has checked that kv.Value is valid JSON, and WireJSON
	// keeps valid JSON valid: no second validation.
	raw := c.storage.wire(kv.Value, kv.ModRevision)
	if raw == nil {
		return c.makeDecodedObject(kv)
	}
	fs := fields.Set{"metadata.name": m.Name}
	if c.storage.typ.Namespaced {
		fs["metadata.namespace"] = m.Namespace
	}
	for k, v := range extra {
		fs[k] = v
	}
	return &cachedObject{key: kv.Key, raw: raw, labels: labels.Set(m.Labels), fields: compactFields(fs), rv: kv.ModRevision,
		initialized: m.IsInitialized(), cache: c}, nil
}

// makePrimedObject is makeObject for a value a writer in this process
// primed: it takes the labels and fields the writer derived from the
// object it encoded into exactly these bytes, and decodes nothing.
func (c *WatchCache) makePrimedObject(kv store.KV) (*cachedObject, error) {
	pw := c.takePrimed(kv.Key, kv.Value)
	if pw == nil {
		return c.makeObject(kv)
	}
	// The value is the writer's own json.Marshal output of a prepared
	// (defaulted) object: valid JSON, no OnRead pass.
	raw := c.storage.wireWritten(kv.Value, kv.ModRevision)
	if raw == nil {
		return c.makeDecodedObject(kv)
	}
	return &cachedObject{key: kv.Key, raw: raw, labels: pw.labels, fields: compactFields(pw.fields), rv: kv.ModRevision,
		initialized: pw.initialized, cache: c}, nil
}

// makeDecodedObject decodes the stored value at once.
func (c *WatchCache) makeDecodedObject(kv store.KV) (*cachedObject, error) {
	obj, err := c.storage.Decode(kv)
	if err != nil {
		return nil, err
	}
	// Decode has checked that kv.Value is valid JSON, and WireJSON keeps
	// valid JSON valid: no second validation.
	raw := c.storage.wire(kv.Value, kv.ModRevision)
	if raw == nil {
		if raw, err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	fs := selectableFields(obj, c.storage.typ.Namespaced, c.fieldsF)
	return newDecodedObject(kv.Key, obj, raw, fs, kv.ModRevision), nil
}

// selectableFields returns the fields field selectors match against:
// metadata.name, metadata.namespace for namespaced kinds, and extra's.
func selectableFields(obj meta.Object, namespaced bool, extra FieldsFunc) fields.Set {
	m := obj.GetObjectMeta()
	fs := fields.Set{"metadata.name": m.Name}
	if namespaced {
		fs["metadata.namespace"] = m.Namespace
	}
	if extra != nil {
		for k, v := range extra(obj) {
			fs[k] = v
		}
	}
	return fs
}

// replace installs a fresh list. Watchers cannot be resumed across it, so
// they are ended and reconnect (getting 410 if they are too far behind).
func (c *WatchCache) replace(objs map[string]*cachedObject, rev int64) {
	c.mu.Lock()
	first := c.rv == 0
	c.objects = objs
	if c.indexField != "" {
		c.index = map[string]map[string]*cachedObject{}
		for _, o := range objs {
			c.indexAdd(o)
		}
	}
	c.start, c.count = 0, 0
	c.rv, c.oldest = rev, rev
	c.changes.Add(1)
	c.resetPrimed()
	ws := c.watchers
	c.watchers = map[*cacheWatcher]struct{}{}
	c.mu.Unlock()
	for w := range ws {
		w.stop(errors.New("watch cache relisted"))
	}
	c.rvCond.Broadcast()
	if first {
		close(c.synced)
	}
}

func (c *WatchCache) apply(ev store.Event) error {
	ce := cacheEvent{rv: ev.Revision}
	switch ev.Type {
	case store.EventProgress:
		c.mu.Lock()
		if ev.Revision > c.rv {
			c.rv = ev.Revision
		}
		c.mu.Unlock()
		c.rvCond.Broadcast()
		return nil
	case store.EventPut:
		o, err := c.makePrimedObject(ev.KV)
		if err != nil {
			return err
		}
		ce.obj, ce.typ = o, meta.Modified
	case store.EventDelete:
		c.takePrimed(ev.KV.Key, nil) // a write primed and overtaken by this delete
		if ev.Prev == nil {
			return fmt.Errorf("delete event without previous value")
		}
		prev := *ev.Prev
		prev.ModRevision = ev.Revision
		o, err := c.makeObject(prev)
		if err != nil {
			return err
		}
		ce.obj, ce.typ = o, meta.Deleted
	default:
		return fmt.Errorf("unknown event type %d", ev.Type)
	}
	c.mu.Lock()
	ce.prev = c.objects[ev.KV.Key]
	if ce.prev != nil {
		c.indexRemove(ce.prev)
	}
	if ce.typ == meta.Deleted {
		delete(c.objects, ev.KV.Key)
	} else {
		if ce.prev == nil {
			ce.typ = meta.Added
		}
		c.objects[ev.KV.Key] = ce.obj
		c.indexAdd(ce.obj)
	}
	c.push(ce)
	c.rv = ev.Revision
	c.changes.Add(1)
	for w := range c.watchers {
		if !w.send(ce) {
			delete(c.watchers, w)
			w.stop(store.ErrWatcherTooSlow)
		}
	}
	c.mu.Unlock()
	c.rvCond.Broadcast()
	return nil
}

// initialHistory is the history ring's first size. It doubles as events
// come, up to the history size: a server has a cache per resource, and
// most resources see few writes (70 rings of 10,000 events would hold
// 28 MB for nothing).
const initialHistory = 64

// push appends to the history ring, growing it up to the history size,
// then dropping the oldest event when full.
func (c *WatchCache) push(ce cacheEvent) {
	if c.count == len(c.events) && len(c.events) < c.history {
		grown := make([]cacheEvent, min(2*len(c.events), c.history))
		for i := range c.count {
			grown[i] = c.events[(c.start+i)%len(c.events)]
		}
		c.events, c.start = grown, 0
	}
	if c.count == len(c.events) {
		c.oldest = c.events[c.start].rv
		c.start = (c.start + 1) % len(c.events)
		c.count--
	}
	c.events[(c.start+c.count)%len(c.events)] = ce
	c.count++
}

// IndexBy makes the cache keep an index of objects by the value of one of
// their selectable fields (spec.nodeName for pods). Call before Run.
func (c *WatchCache) IndexBy(field string) {
	c.mu.Lock()
	c.indexField = field
	c.index = map[string]map[string]*cachedObject{}
	c.mu.Unlock()
}

func (c *WatchCache) indexAdd(o *cachedObject) {
	if c.indexField == "" {
		return
	}
	v := o.fields.Get(c.indexField)
	if c.index[v] == nil {
		c.index[v] = map[string]*cachedObject{}
	}
	c.index[v][o.key] = o
}

func (c *WatchCache) indexRemove(o *cachedObject) {
	if c.indexField == "" {
		return
	}
	v := o.fields.Get(c.indexField)
	delete(c.index[v], o.key)
	if len(c.index[v]) == 0 {
		delete(c.index, v)
	}
}

// ByIndex returns the objects whose indexed field has value v. Objects
// not decoded yet are decoded after the cache's lock is released.
func (c *WatchCache) ByIndex(v string) []meta.Object {
	c.mu.RLock()
	cached := make([]*cachedObject, 0, len(c.index[v]))
	for _, o := range c.index[v] {
		cached = append(cached, o)
	}
	c.mu.RUnlock()
	out := make([]meta.Object, len(cached))
	for i, o := range cached {
		out[i] = o.object()
	}
	return out
}

// waitFor blocks until the cache has seen revision rv or ctx ends.
func (c *WatchCache) waitFor(ctx context.Context, rv int64) error {
	stop := context.AfterFunc(ctx, c.rvCond.Broadcast)
	defer stop()
	c.mu.RLock()
	defer c.mu.RUnlock()
	for c.rv < rv {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.rvCond.Wait()
	}
	return nil
}

// List returns the objects of namespace ns ("" for all) that pass f,
// sorted by key, and the cache revision they reflect.
func (c *WatchCache) List(ns string, f Filter) ([]*cachedObject, int64) {
	prefix := c.storage.KeyPrefix(ns)
	c.mu.RLock()
	out := make([]*cachedObject, 0, len(c.objects))
	for k, o := range c.objects {
		if strings.HasPrefix(k, prefix) && f.matches(o) {
			out = append(out, o)
		}
	}
	rv := c.rv
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, rv
}

// Get returns the cached object ns/name.
func (c *WatchCache) Get(ns, name string) (*cachedObject, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	o, ok := c.objects[c.storage.Key(ns, name)]
	return o, ok
}

// Objects calls fn for every object of one snapshot of the cache. fn runs
// after the cache's lock is released (objects not decoded yet are decoded
// then), so it may block; it must not change the objects.
func (c *WatchCache) Objects(fn func(meta.Object)) {
	c.mu.RLock()
	cached := make([]*cachedObject, 0, len(c.objects))
	for _, o := range c.objects {
		cached = append(cached, o)
	}
	c.mu.RUnlock()
	for _, o := range cached {
		fn(o.object())
	}
}

// ErrResourceVersionTooOld is returned by Watch for a resourceVersion older
// than the cache's history.
var ErrResourceVersionTooOld = errors.New("too old resource version")

// ErrCacheStopped is returned by Watch once the cache has stopped (the API
// server is shutting down or the resource was removed).
var ErrCacheStopped = errors.New("the watch cache has stopped")

// WatchStart says where a watch served from the cache starts.
type WatchStart int

const (
	// StartWithState starts with every object that passes the filter, as
	// Added events at the cache's current revision, then its changes.
	StartWithState WatchStart = iota
	// StartAfter starts with the changes after WatchOptions.ResourceVersion,
	// replayed from the history (ErrResourceVersionTooOld when it is older).
	StartAfter
	// StartNow starts with the changes after the cache's current revision.
	StartNow
)

// WatchOptions says how a watch served from the cache starts and what it
// is sent. The zero value starts with the current state, without
// bookmarks, with the default buffer.
type WatchOptions struct {
	Start WatchStart
	// ResourceVersion is where StartAfter starts; ignored otherwise.
	ResourceVersion int64
	// Bookmarks lets the watcher receive BOOKMARK events.
	Bookmarks bool
	// InitialEventsEnd, with StartWithState and Bookmarks, ends the
	// initial events with a BOOKMARK at the revision they reflect, marked
	// as their end (a watch-list's k8s.io/initial-events-end bookmark).
	InitialEventsEnd bool
	// Buffer is the watcher's queue length; 0 means 1000.
	Buffer int
}

// Watch starts a watcher on namespace ns with filter f from resourceVersion
// rv (0: the current state as Added events, then changes). It returns the
// events to deliver first and the watcher, whose channel carries the rest.
func (c *WatchCache) Watch(ns string, f Filter, rv int64, bookmarks bool, buffer int) ([]WatchEvent, *cacheWatcher, error) {
	opts := WatchOptions{Start: StartAfter, ResourceVersion: rv, Bookmarks: bookmarks, Buffer: buffer}
	if rv == 0 {
		opts.Start = StartWithState
	}
	return c.WatchWith(ns, f, opts)
}

// WatchWith starts a watcher on namespace ns with filter f as opts say.
// It returns the events to deliver first and the watcher, whose channel
// carries the changes after them; both are taken under one lock, so no
// change is missed or sent twice. The watcher's StartRevision is the
// revision the first events bring the client to.
func (c *WatchCache) WatchWith(ns string, f Filter, opts WatchOptions) ([]WatchEvent, *cacheWatcher, error) {
	buffer := opts.Buffer
	if buffer <= 0 {
		buffer = 1000
	}
	w := &cacheWatcher{
		ch:        make(chan WatchEvent, buffer),
		done:      make(chan struct{}),
		filter:    f,
		prefix:    c.storage.KeyPrefix(ns),
		bookmarks: opts.Bookmarks,
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil, nil, ErrCacheStopped
	}
	var initial []WatchEvent
	switch opts.Start {
	case StartWithState:
		for k, o := range c.objects {
			if strings.HasPrefix(k, w.prefix) && f.matches(o) {
				initial = append(initial, WatchEvent{Type: meta.Added, Object: o})
			}
		}
		sort.Slice(initial, func(i, j int) bool { return initial[i].Object.key < initial[j].Object.key })
		if opts.InitialEventsEnd && opts.Bookmarks {
			initial = append(initial, WatchEvent{Type: meta.Bookmark, RV: c.rv, InitialEventsEnd: true})
		}
	case StartNow:
	case StartAfter:
		rv := opts.ResourceVersion
		if floor := max(c.oldest, c.compacted); rv < floor {
			// kube-apiserver's wording: the second number is the oldest
			// resourceVersion a watch may start from.
			return nil, nil, fmt.Errorf("%w: %d (%d)", ErrResourceVersionTooOld, rv, floor)
		}
		for i := 0; i < c.count; i++ {
			ce := c.events[(c.start+i)%len(c.events)]
			if ce.rv <= rv {
				continue
			}
			if ev, ok := w.translate(ce); ok {
				initial = append(initial, ev)
			}
		}
	default:
		return nil, nil, fmt.Errorf("unknown watch start %d", opts.Start)
	}
	w.startRV = c.rv
	c.watchers[w] = struct{}{}
	return initial, w, nil
}

// setCompacted records that the store was compacted to rev: from then on
// a watch from below rev gets ErrResourceVersionTooOld.
func (c *WatchCache) setCompacted(rev int64) {
	c.mu.Lock()
	c.compacted = max(c.compacted, rev)
	c.mu.Unlock()
}

// Changes returns a number that moves whenever the cached objects change
// (never for progress or bookmarks): readers that derive state from the
// objects keep it while Changes stays the same.
func (c *WatchCache) Changes() int64 { return c.changes.Load() }

// Revision returns the revision the cache reflects.
func (c *WatchCache) Revision() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.rv
}

// Unwatch removes w.
func (c *WatchCache) Unwatch(w *cacheWatcher) {
	c.mu.Lock()
	delete(c.watchers, w)
	c.mu.Unlock()
	w.stop(nil)
}

// Bookmark sends a BOOKMARK at the cache's revision to every watcher that
// asked for bookmarks (skipping ones whose buffer is full).
func (c *WatchCache) Bookmark() {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for w := range c.watchers {
		if w.bookmarks {
			select {
			case w.ch <- WatchEvent{Type: meta.Bookmark, RV: c.rv}:
			default:
			}
		}
	}
}

// stop ends every watcher and refuses new ones: Run calls it when it
// returns, as nothing feeds the cache after that. A watch that arrived
// after the last watchers were ended would otherwise get no event and no
// end, and keep its client on a server that is going away.
func (c *WatchCache) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.stopWatchers(errors.New("API server shutting down"))
}

func (c *WatchCache) stopWatchers(err error) {
	c.mu.Lock()
	ws := c.watchers
	c.watchers = map[*cacheWatcher]struct{}{}
	c.mu.Unlock()
	for w := range ws {
		w.stop(err)
	}
}

// WatchEvent is one event delivered to a watcher. Object is nil for
// bookmarks, which carry only RV (and, for the bookmark that ends a
// watch-list's initial events, InitialEventsEnd).
type WatchEvent struct {
	Type             string
	Object           *cachedObject
	RV               int64
	InitialEventsEnd bool
}

// cacheWatcher is one watch served from the cache. The cache owns sending;
// the HTTP handler owns receiving and calls Unwatch when it leaves.
type cacheWatcher struct {
	ch        chan WatchEvent
	done      chan struct{}
	once      sync.Once
	err       error
	filter    Filter
	prefix    string
	bookmarks bool
	startRV   int64 // the cache's revision when the watcher started
}

// StartRevision returns the cache's revision when the watcher started:
// its first events bring a client there; its channel carries only later
// changes.
func (w *cacheWatcher) StartRevision() int64 { return w.startRV }

// translate turns a resource event into what this watcher sees: an object
// that starts matching its filter is Added, one that stops matching is
// Deleted, as Kubernetes' watch cache does.
func (w *cacheWatcher) translate(ce cacheEvent) (WatchEvent, bool) {
	if !strings.HasPrefix(ce.obj.key, w.prefix) {
		return WatchEvent{}, false
	}
	cur := ce.typ != meta.Deleted && w.filter.matches(ce.obj)
	prev := ce.prev != nil && w.filter.matches(ce.prev)
	if ce.typ == meta.Deleted {
		prev = w.filter.matches(ce.obj)
	}
	switch {
	case cur && prev:
		return WatchEvent{Type: meta.Modified, Object: ce.obj, RV: ce.rv}, true
	case cur:
		return WatchEvent{Type: meta.Added, Object: ce.obj, RV: ce.rv}, true
	case prev:
		return WatchEvent{Type: meta.Deleted, Object: ce.obj, RV: ce.rv}, true
	}
	return WatchEvent{}, false
}

// send queues ce without blocking; false means the buffer is full.
func (w *cacheWatcher) send(ce cacheEvent) bool {
	ev, ok := w.translate(ce)
	if !ok {
		return true
	}
	select {
	case w.ch <- ev:
		return true
	default:
		return false
	}
}

func (w *cacheWatcher) stop(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.done)
	})
}

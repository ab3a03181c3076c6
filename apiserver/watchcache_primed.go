package apiserver

import (
	"bytes"
	"maps"
	"sync"
	"unicode/utf8"

	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// maxPrimed bounds the writes a watch cache holds primed at once (writes in
// flight; the server admits about MaxInFlight requests besides those of
// system:masters, which are not limited).
const maxPrimed = 4096

// primedWrite is what a writer in this process knows of a value it is
// about to store, so that the watch cache, receiving exactly these bytes,
// need not decode them to learn the labels and selectable fields. Never
// changed once made.
type primedWrite struct {
	value       []byte
	labels      labels.Set
	fields      fields.Set
	initialized bool
}

// primer holds primed writes by key until the cache sees their events.
// The zero value is empty and ready; safe for concurrent use.
type primer struct {
	mu     sync.Mutex
	writes map[string]*primedWrite
}

// prime records that value, the encoding of obj, is about to be written
// under key. It returns the function to call if the write fails. Objects
// whose labels or selectable fields are not valid UTF-8 are not primed
// (their JSON carries U+FFFD in place of the bad bytes, so what decoding
// it gives differs).
func (c *WatchCache) prime(key string, value []byte, obj meta.Object) (undo func()) {
	m := obj.GetObjectMeta()
	pw := &primedWrite{value: value, fields: selectableFields(obj, c.storage.typ.Namespaced, c.fieldsF),
		initialized: m.IsInitialized()}
	if !validUTF8(m.Labels) || !validUTF8(pw.fields) {
		return func() {}
	}
	pw.labels = maps.Clone(m.Labels)
	p := &c.primed
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.writes == nil {
		p.writes = map[string]*primedWrite{}
	}
	if len(p.writes) >= maxPrimed {
		return func() {}
	}
	p.writes[key] = pw
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.writes[key] == pw {
			delete(p.writes, key)
		}
	}
}

// takePrimed removes the write primed for key and returns it when its
// bytes are value (another writer of the same key may have primed other
// bytes, or failed); nil otherwise. Every event of a key takes its entry,
// so entries do not outlive the writes they describe.
func (c *WatchCache) takePrimed(key string, value []byte) *primedWrite {
	p := &c.primed
	p.mu.Lock()
	pw := p.writes[key]
	if pw != nil {
		delete(p.writes, key)
	}
	p.mu.Unlock()
	if pw == nil || !bytes.Equal(pw.value, value) {
		return nil
	}
	return pw
}

// resetPrimed forgets every primed write (a relist replaces the events
// that would have taken them).
func (c *WatchCache) resetPrimed() {
	c.primed.mu.Lock()
	c.primed.writes = nil
	c.primed.mu.Unlock()
}

func validUTF8(m map[string]string) bool {
	for k, v := range m {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

package record

import (
	"fmt"
	"sync"

	"github.com/orkit/orkit/api/meta"
)

// Fake is a Recorder that keeps Events in memory, for tests of the
// components that record them. The zero value is ready; it is safe for
// concurrent use and keeps every Event until Reset.
type Fake struct {
	mu     sync.Mutex
	events []Recorded
}

// Recorded is one Event a Fake received.
type Recorded struct {
	// Namespace, Name and UID of the subject, FieldPath of its part.
	Namespace, Name string
	UID             meta.UID
	FieldPath       string
	// Type, Reason and Message as given (Message formatted).
	Type, Reason, Message string
}

// String formats r as "Type Reason FieldPath: Message" for test failures.
func (r Recorded) String() string {
	return fmt.Sprintf("%s %s %s %s: %s", r.Type, r.Reason, r.Name, r.FieldPath, r.Message)
}

var _ Recorder = (*Fake)(nil)

// Event implements Recorder.
func (f *Fake) Event(obj meta.Object, eventType, reason, message string) {
	r := Recorded{Type: eventType, Reason: reason, Message: message}
	if o, fp := unwrap(obj); o != nil {
		m := o.GetObjectMeta()
		r.Namespace, r.Name, r.UID, r.FieldPath = m.Namespace, m.Name, m.UID, fp
	}
	f.mu.Lock()
	f.events = append(f.events, r)
	f.mu.Unlock()
}

// Eventf implements Recorder.
func (f *Fake) Eventf(obj meta.Object, eventType, reason, format string, args ...any) {
	f.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Events returns a copy of the Events received so far, oldest first.
func (f *Fake) Events() []Recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Recorded(nil), f.events...)
}

// Reasons returns the reasons of the Events received so far, oldest first.
func (f *Fake) Reasons() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.events))
	for i, e := range f.events {
		out[i] = e.Reason
	}
	return out
}

// Reset forgets every Event received.
func (f *Fake) Reset() {
	f.mu.Lock()
	f.events = nil
	f.mu.Unlock()
}

package cni

import "sync"

// keyLock serializes operations per key (sandbox ID) while letting
// different keys proceed in parallel. Its zero value is ready; entries live
// only while someone holds or waits for them.
type keyLock struct {
	mu    sync.Mutex
	locks map[string]*keyLockEntry
}

type keyLockEntry struct {
	mu   sync.Mutex
	refs int
}

// lock blocks until key is free and returns the function that frees it.
func (k *keyLock) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = make(map[string]*keyLockEntry)
	}
	e := k.locks[key]
	if e == nil {
		e = &keyLockEntry{}
		k.locks[key] = e
	}
	e.refs++
	k.mu.Unlock()

	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

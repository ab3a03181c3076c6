package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/orkit/orkit/store"
)

// Errors of the service address allocators. They reach clients as 422
// Invalid field errors naming the field.
var (
	// ErrRangeFull: every address or port of the range is allocated.
	ErrRangeFull = errors.New("range is full")
	// ErrAllocated: a requested address or port belongs to another Service.
	ErrAllocated = errors.New("provided value is already allocated")
	// ErrOutOfRange: a requested address or port is outside the range.
	ErrOutOfRange = errors.New("provided value is not in the valid range")
	// ErrCorruptRange: the stored bitmap does not decode; the start-up
	// repair rewrites it from the Services.
	ErrCorruptRange = errors.New("allocation range does not decode")
)

// rangeRecord is how one allocation bitmap is stored: the range it
// covers (so a changed configuration is noticed) and the bitmap, bit i
// set when offset i is allocated.
type rangeRecord struct {
	Range string `json:"range"`
	Data  []byte `json:"data"`
}

// bitRange is an allocation bitmap of size offsets kept at one store key;
// every change is one compare-and-swap of the whole bitmap, so concurrent
// allocators (in one process or several) never hand out an offset twice.
// Safe for concurrent use.
type bitRange struct {
	// mu serialises this process's writers, so they do not fight over
	// the CAS; writers in other processes are kept honest by the CAS.
	mu   sync.Mutex
	st   store.Interface
	key  string
	name string // the range as text, e.g. "10.96.0.0/12"
	size int
	// skip are offsets never handed out at random (network, broadcast,
	// reserved addresses); they can still be requested explicitly unless
	// also in forbid.
	skip   map[int]bool
	forbid map[int]bool
}

// update runs fn on the current bitmap and stores the result with one CAS,
// retrying on conflicts. fn returns false to store nothing. A stored value
// that does not decode is an error (ErrCorruptRange).
func (r *bitRange) update(ctx context.Context, fn func(bits []byte) (bool, error)) error {
	return r.updateRaw(ctx, false, fn)
}

// updateRaw is update; with overwrite, an undecodable stored value counts
// as an empty bitmap (the repair rewrites it whole).
func (r *bitRange) updateRaw(ctx context.Context, overwrite bool, fn func(bits []byte) (bool, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		kv, err := r.st.Get(ctx, r.key)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("read allocation range %s: %w", r.key, err)
		}
		bits := make([]byte, (r.size+7)/8)
		if exists {
			var rec rangeRecord
			if err := json.Unmarshal(kv.Value, &rec); err != nil && !overwrite {
				return fmt.Errorf("%w: %s: %v", ErrCorruptRange, r.key, err)
			}
			if rec.Range == r.name && len(rec.Data) == len(bits) {
				copy(bits, rec.Data)
			} // else: the configured range changed; start empty, repair refills it
		}
		ok, err := fn(bits)
		if err != nil || !ok {
			return err
		}
		val, err := json.Marshal(rangeRecord{Range: r.name, Data: bits})
		if err != nil {
			return err
		}
		if exists {
			_, err = r.st.Update(ctx, r.key, val, kv.ModRevision)
		} else {
			_, err = r.st.Create(ctx, r.key, val)
		}
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrAlreadyExists) || errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("write allocation range %s: %w", r.key, err)
		}
		return nil
	}
}

// allocate takes the requested offsets (each must be free and in range)
// and count more at random, all in one write. It returns the random ones.
func (r *bitRange) allocate(ctx context.Context, requested []int, count int) ([]int, error) {
	if count == 0 && len(requested) == 0 {
		return nil, nil
	}
	var got []int
	err := r.update(ctx, func(bits []byte) (bool, error) {
		got = got[:0]
		for _, o := range requested {
			if o < 0 || o >= r.size || r.forbid[o] {
				return false, ErrOutOfRange
			}
			if isSet(bits, o) {
				return false, ErrAllocated
			}
			set(bits, o)
		}
		for range count {
			o, ok := r.pick(bits)
			if !ok {
				return false, ErrRangeFull
			}
			set(bits, o)
			got = append(got, o)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return got, nil
}

// pick finds a free offset from a random start, skipping the reserved ones.
func (r *bitRange) pick(bits []byte) (int, bool) {
	start := rand.IntN(r.size)
	for i := range r.size {
		o := (start + i) % r.size
		if !isSet(bits, o) && !r.skip[o] && !r.forbid[o] {
			return o, true
		}
	}
	return 0, false
}

// release frees offsets; offsets outside the range are ignored.
func (r *bitRange) release(ctx context.Context, offsets []int) error {
	if len(offsets) == 0 {
		return nil
	}
	return r.update(ctx, func(bits []byte) (bool, error) {
		changed := false
		for _, o := range offsets {
			if o >= 0 && o < r.size && isSet(bits, o) {
				clear1(bits, o)
				changed = true
			}
		}
		return changed, nil
	})
}

// snapshot returns a copy of the current bitmap.
func (r *bitRange) snapshot(ctx context.Context) ([]byte, error) {
	var out []byte
	err := r.update(ctx, func(bits []byte) (bool, error) {
		out = bits
		return false, nil
	})
	return out, err
}

func isSet(bits []byte, o int) bool { return bits[o/8]&(1<<(o%8)) != 0 }
func set(bits []byte, o int)        { bits[o/8] |= 1 << (o % 8) }
func clear1(bits []byte, o int)     { bits[o/8] &^= 1 << (o % 8) }

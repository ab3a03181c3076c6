package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

// StoreFactory opens the store a control plane keeps its objects in
// (Config.Store). Start calls it once with its context and
// Config.DataDir; the control plane owns the store it returns and closes
// it when it stops (but see ExistingStore). Any store.Interface that
// passes store/storetest will do: bbolt (BboltStore, the default), or a
// distributed backend.
type StoreFactory func(ctx context.Context, dataDir string) (store.Interface, error)

// BboltStore returns the default StoreFactory: a bbolt store in
// dataDir/store.db with opts (nil means bbolt's defaults, except that a
// nil Logger means slog.Default(): the store's warnings, such as a commit
// lost to a damaged meta page, must reach someone). The file is locked
// while open, so one control plane at a time uses a data dir: another
// fails once opts.LockTimeout (default 5s) passes, with bbolt.ErrLocked
// naming the file and the process holding it.
func BboltStore(opts *bbolt.Config) StoreFactory {
	var o bbolt.Config
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return func(_ context.Context, dataDir string) (store.Interface, error) {
		st, err := bbolt.Open(filepath.Join(dataDir, "store.db"), &o)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
}

// ExistingStore returns a StoreFactory that gives st, which the caller
// opened and keeps owning: the control plane does not close it, so the
// caller closes it after the control plane is Done.
func ExistingStore(st store.Interface) StoreFactory {
	return func(context.Context, string) (store.Interface, error) { return callerOwned{st}, nil }
}

// callerOwned marks a store the control plane must not close.
type callerOwned struct{ store.Interface }

// openStore runs cfg.Store and returns the store and how to release it.
func (cfg *Config) openStore(ctx context.Context) (store.Interface, func(), error) {
	st, err := cfg.Store(ctx, cfg.DataDir)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: open store: %w", err)
	}
	if st == nil {
		return nil, nil, fmt.Errorf("%w: the store factory returned no store", ErrInvalidConfig)
	}
	if o, ok := st.(callerOwned); ok {
		return o.Interface, func() {}, nil
	}
	return st, func() {
		if err := st.Close(); err != nil {
			cfg.Logger.Warn("controlplane: close store", "err", err)
		}
	}, nil
}

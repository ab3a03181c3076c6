package bbolt

import "errors"

// ErrLocked is returned by Open when another process (or another Store in
// this process) holds the database file's lock for longer than
// Config.LockTimeout.
var ErrLocked = errors.New("database file is locked by another store")

package bbolt

import "errors"

// ErrLocked is returned by Open when another process (or another Store in
// this process) holds the database file's lock (a flock) for longer than
// Config.LockTimeout. The error names the file and, where Linux's
// /proc/locks tells, the holder ("held by pid 1234 (minicluster ...)").
var ErrLocked = errors.New("database file is locked by another store")

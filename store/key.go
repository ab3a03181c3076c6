package store

import (
	"fmt"
	"strings"
)

// MaxKeySize is the longest key a store accepts, in bytes. 1 KiB leaves
// room for Kubernetes-style keys (a resource prefix, a 63-byte namespace
// and a 253-byte name) several times over while keeping index pages dense.
const MaxKeySize = 1024

// ValidateKey reports whether key is a well-formed store key: non-empty, at
// most MaxKeySize bytes, starting with "/", made of non-empty segments
// separated by single slashes (no "//", no trailing "/"), none of them "."
// or "..", and free of NUL bytes. Any other byte is allowed.
//
// The error wraps ErrInvalidKey and quotes the key (truncated when long).
// ValidateKey is a pure function, safe for concurrent use; backends call it
// before writing anything.
func ValidateKey(key string) error {
	if reason := keyProblem(key); reason != "" {
		return fmt.Errorf("key %s: %s: %w", quoteKey(key), reason, ErrInvalidKey)
	}
	return nil
}

func keyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case len(key) > MaxKeySize:
		return fmt.Sprintf("longer than %d bytes (%d)", MaxKeySize, len(key))
	case key[0] != '/':
		return `does not start with "/"`
	case strings.IndexByte(key, 0) >= 0:
		return "contains a NUL byte"
	}
	for seg := range strings.SplitSeq(key[1:], "/") {
		switch seg {
		case "":
			return "has an empty path segment"
		case ".", "..":
			return fmt.Sprintf("has a %q path segment", seg)
		}
	}
	return ""
}

// ValidatePrefix reports whether prefix can select keys in List and Watch:
// it is empty (every key) or starts with "/", holds no NUL byte and is at
// most MaxKeySize bytes. A prefix is matched byte-wise, so "/pods" also
// selects "/podsx/a"; end it with "/" to select one directory. The error
// wraps ErrInvalidKey.
func ValidatePrefix(prefix string) error {
	var reason string
	switch {
	case prefix == "":
		return nil
	case len(prefix) > MaxKeySize:
		reason = fmt.Sprintf("longer than %d bytes (%d)", MaxKeySize, len(prefix))
	case prefix[0] != '/':
		reason = `does not start with "/"`
	case strings.IndexByte(prefix, 0) >= 0:
		reason = "contains a NUL byte"
	default:
		return nil
	}
	return fmt.Errorf("prefix %s: %s: %w", quoteKey(prefix), reason, ErrInvalidKey)
}

// ValidateValue reports whether value fits in MaxValueSize; the error wraps
// ErrTooLarge and names key and the size.
func ValidateValue(key string, value []byte) error {
	if len(value) > MaxValueSize {
		return fmt.Errorf("value of key %s is %d bytes, limit %d: %w",
			quoteKey(key), len(value), MaxValueSize, ErrTooLarge)
	}
	return nil
}

// quoteKey quotes key for an error message, cutting it to 128 bytes so a
// hostile key cannot blow up logs.
func quoteKey(key string) string {
	const max = 128
	if len(key) > max {
		return fmt.Sprintf("%q...(%d bytes)", key[:max], len(key))
	}
	return fmt.Sprintf("%q", key)
}

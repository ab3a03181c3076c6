package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key string
		ok  bool
	}{
		{"/a", true},
		{"/registry/pods/default/web-1", true},
		{"/a/b.c/..d/.e", true},
		{"/ünïcode/ключ", true},
		{"/" + strings.Repeat("k", store.MaxKeySize-1), true},
		{"", false},
		{"/", false},
		{"a/b", false},
		{"//a", false},
		{"/a//b", false},
		{"/a/", false},
		{"/.", false},
		{"/..", false},
		{"/a/./b", false},
		{"/a/../b", false},
		{"/a/..", false},
		{"/a\x00b", false},
		{"/" + strings.Repeat("k", store.MaxKeySize), false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.40q", tt.key), func(t *testing.T) {
			err := store.ValidateKey(tt.key)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, store.ErrInvalidKey)
			assert.LessOrEqual(t, len(err.Error()), 400, "long keys are cut in messages")
		})
	}
}

func TestValidatePrefix(t *testing.T) {
	for p, ok := range map[string]bool{"": true, "/": true, "/a/": true, "/a": true, "a": false, "/a\x00": false,
		"/" + strings.Repeat("p", store.MaxKeySize): false} {
		err := store.ValidatePrefix(p)
		if ok {
			assert.NoError(t, err, "%q", p)
		} else {
			assert.ErrorIs(t, err, store.ErrInvalidKey, "%q", p)
		}
	}
}

func TestValidateValue(t *testing.T) {
	assert.NoError(t, store.ValidateValue("/k", make([]byte, store.MaxValueSize)))
	assert.NoError(t, store.ValidateValue("/k", nil))
	assert.ErrorIs(t, store.ValidateValue("/k", make([]byte, store.MaxValueSize+1)), store.ErrTooLarge)
}

// FuzzValidateKey checks that validation never panics and that every
// accepted key has the documented shape.
func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"/a", "/a/b", "", "/", "/..", "/a/./b", "/a\x00", "//", "/a/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		err := store.ValidateKey(key)
		if err != nil {
			require.True(t, errors.Is(err, store.ErrInvalidKey))
			return
		}
		require.NoError(t, store.ValidatePrefix(key), "a key is also a valid prefix")
		require.True(t, strings.HasPrefix(key, "/"))
		require.LessOrEqual(t, len(key), store.MaxKeySize)
		require.NotContains(t, key, "\x00")
		for _, seg := range strings.Split(key[1:], "/") {
			require.NotContains(t, []string{"", ".", ".."}, seg)
		}
	})
}

func ExampleValidateKey() {
	fmt.Println(store.ValidateKey("/registry/pods/default/web"))
	fmt.Println(store.ValidateKey("/registry/../secrets"))
	// Output:
	// <nil>
	// key "/registry/../secrets": has a ".." path segment: invalid key
}

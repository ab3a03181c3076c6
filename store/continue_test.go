package store_test

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

func TestContinueTokenRoundTrip(t *testing.T) {
	tok := store.ContinueToken{Revision: 42, After: "/pods/ns/web-7"}
	got, err := store.DecodeContinue(tok.Encode(), "/pods/")
	require.NoError(t, err)
	assert.Equal(t, tok, got)
}

func TestDecodeContinueRejects(t *testing.T) {
	raw := func(b ...byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	good := store.ContinueToken{Revision: 5, After: "/a/b"}.Encode()
	tests := map[string]struct{ token, prefix string }{
		"empty":          {"", "/a/"},
		"not base64":     {"***", "/a/"},
		"padded base64":  {base64.URLEncoding.EncodeToString([]byte{1, 5, '/', 'a'}), "/a/"},
		"wrong version":  {raw(9, 5, '/', 'a', '/', 'b'), "/a/"},
		"no revision":    {raw(1), "/a/"},
		"zero revision":  {raw(1, 0, '/', 'a', '/', 'b'), "/a/"},
		"huge revision":  {raw(1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, '/', 'a'), ""},
		"other prefix":   {good, "/b/"},
		"invalid key":    {raw(1, 5, '/', 'a', '/', '.', '.'), "/a/"},
		"overlong token": {string(make([]byte, 5000)), "/a/"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := store.DecodeContinue(tt.token, tt.prefix)
			require.ErrorIs(t, err, store.ErrInvalidContinue)
		})
	}
}

// FuzzContinueToken: decoding arbitrary tokens never panics, every error is
// ErrInvalidContinue, and whatever decodes re-encodes to the same token.
func FuzzContinueToken(f *testing.F) {
	f.Add(store.ContinueToken{Revision: 7, After: "/a/b"}.Encode(), "/a/")
	f.Add("", "")
	f.Add("AQ", "/")
	f.Add("%%%", "/x")
	f.Fuzz(func(t *testing.T, token, prefix string) {
		tok, err := store.DecodeContinue(token, prefix)
		if err != nil {
			require.ErrorIs(t, err, store.ErrInvalidContinue)
			return
		}
		require.Positive(t, tok.Revision)
		require.NoError(t, store.ValidateKey(tok.After))
		again, err := store.DecodeContinue(tok.Encode(), prefix)
		require.NoError(t, err)
		require.Equal(t, tok, again)
	})
}

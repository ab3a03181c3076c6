package clientcert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/kubelet/clientcert"
	"github.com/orkit/orkit/pki"
)

// TestDiscoverCA: a node that knows only the CA's hash gets the CA from
// the server's TLS chain; a hash of another CA, a malformed hash and a
// plain-http URL are refused with the reason.
func TestDiscoverCA(t *testing.T) {
	cp, _ := cluster(t)
	ctx := context.Background()
	other, err := pki.NewCA("other")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, server, pin string
		wantErr           error
	}{
		{"pinned CA", cp.URL, clientcert.CAHash(cp.CA.Cert), nil},
		{"upper-case hex", cp.URL, "sha256:" + strings.ToUpper(strings.TrimPrefix(clientcert.CAHash(cp.CA.Cert), "sha256:")), nil},
		{"another CA", cp.URL, clientcert.CAHash(other.Cert), clientcert.ErrCAMismatch},
		{"no prefix", cp.URL, strings.TrimPrefix(clientcert.CAHash(cp.CA.Cert), "sha256:"), clientcert.ErrInvalidCAHash},
		{"short", cp.URL, "sha256:abcd", clientcert.ErrInvalidCAHash},
		{"http", strings.Replace(cp.URL, "https", "http", 1), clientcert.CAHash(cp.CA.Cert), clientcert.ErrInvalidConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ca, err := clientcert.DiscoverCA(ctx, tc.server, tc.pin)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Nil(t, ca)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, string(cp.CA.CertPEM), string(ca))
		})
	}
}

// FuzzParseCAHash: any input is either refused with ErrInvalidCAHash or
// gives a 32-byte digest.
func FuzzParseCAHash(f *testing.F) {
	f.Add("sha256:" + strings.Repeat("ab", 32))
	f.Add("sha256:")
	f.Add("SHA256:" + strings.Repeat("0", 64))
	f.Fuzz(func(t *testing.T, pin string) {
		sum, err := clientcert.ParseCAHash(pin)
		if err != nil {
			require.ErrorIs(t, err, clientcert.ErrInvalidCAHash)
			return
		}
		require.Len(t, sum, 32)
	})
}

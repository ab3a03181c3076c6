package certificates

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// caPEM makes a self-signed certificate named cn; isCA sets the CA bit.
func caPEM(t testing.TB, cn string, isCA bool) string {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: isCA, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestValidateClusterTrustBundle(t *testing.T) {
	ca1, ca2 := caPEM(t, "one", true), caPEM(t, "two", true)
	leaf := caPEM(t, "leaf", false)
	b, _ := pem.Decode([]byte(ca1))
	withHeaders := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Headers: map[string]string{"a": "b"}, Bytes: b.Bytes}))
	tests := []struct {
		name, objName, signer, bundle string
		wantErr                       string // substring of the aggregate error, "" for valid
	}{
		{name: "no signer", objName: "roots", bundle: ca1},
		{name: "two anchors and text between", objName: "roots", bundle: "intro\n" + ca1 + "text\n" + ca2},
		{name: "signer with prefix", objName: "example.com:signer:roots", signer: "example.com/signer", bundle: ca1},
		{name: "signer without prefix", objName: "roots", signer: "example.com/signer", bundle: ca1, wantErr: "must be named with prefix example.com:signer:"},
		{name: "colon without signer", objName: "a:b", bundle: ca1, wantErr: `must not have ":" in its name`},
		{name: "bad signer", objName: "example:x:roots", signer: "example/x", bundle: ca1, wantErr: "at least two segments"},
		{name: "signer with two slashes", objName: "a.b:c:d:roots", signer: "a.b/c/d", bundle: ca1, wantErr: "example.com/signer-name"},
		{name: "empty bundle", objName: "roots", bundle: "", wantErr: "at least one trust anchor must be provided"},
		{name: "text only", objName: "roots", bundle: "hello", wantErr: "at least one trust anchor must be provided"},
		{name: "wrong block type", objName: "roots", bundle: strings.Replace(ca1, "CERTIFICATE", "PRIVATE KEY", 2), wantErr: "entry 0 has bad block type: PRIVATE KEY"},
		{name: "headers", objName: "roots", bundle: withHeaders, wantErr: "entry 0 has PEM block headers"},
		{name: "not X.509", objName: "roots", bundle: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")})), wantErr: "entry 0 does not parse as X.509"},
		{name: "not a CA", objName: "roots", bundle: ca1 + leaf, wantErr: "entry 1 does not have the CA bit set"},
		{name: "duplicate", objName: "roots", bundle: ca1 + ca2 + ca1, wantErr: "duplicate trust anchor (indices [0 2])"},
		{name: "oversized", objName: "roots", bundle: ca1 + strings.Repeat("x", MaxTrustBundleSize), wantErr: "may not be more than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctb := &ClusterTrustBundle{ObjectMeta: meta.ObjectMeta{Name: tt.objName},
				Spec: ClusterTrustBundleSpec{SignerName: tt.signer, TrustBundle: tt.bundle}}
			errs := ValidateClusterTrustBundle(ctb)
			if tt.wantErr == "" {
				assert.Empty(t, errs)
				return
			}
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.wantErr)
		})
	}
}

func TestValidateClusterTrustBundleUpdate(t *testing.T) {
	ca1, ca2 := caPEM(t, "one", true), caPEM(t, "two", true)
	old := &ClusterTrustBundle{ObjectMeta: meta.ObjectMeta{Name: "example.com:s:roots", ResourceVersion: "1"},
		Spec: ClusterTrustBundleSpec{SignerName: "example.com/s", TrustBundle: ca1}}
	tests := []struct {
		name    string
		mutate  func(b *ClusterTrustBundle)
		wantErr string
	}{
		{name: "new anchors", mutate: func(b *ClusterTrustBundle) { b.Spec.TrustBundle = ca2 }},
		{name: "labels", mutate: func(b *ClusterTrustBundle) { b.Labels = map[string]string{"a": "b"} }},
		{name: "signer changed", mutate: func(b *ClusterTrustBundle) { b.Spec.SignerName = "example.com/t" }, wantErr: "spec.signerName"},
		{name: "bad anchors", mutate: func(b *ClusterTrustBundle) { b.Spec.TrustBundle = "x" }, wantErr: "at least one trust anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := *old
			tt.mutate(&b)
			errs := ValidateClusterTrustBundleUpdate(&b, old)
			if tt.wantErr == "" {
				assert.Empty(t, errs)
				return
			}
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.wantErr)
		})
	}
}

func TestTrustAnchorsPEM(t *testing.T) {
	ca1, ca2 := caPEM(t, "one", true), caPEM(t, "two", true)
	out := string(TrustAnchorsPEM(ca1+ca2, "noise\n"+ca2, ""))
	assert.Equal(t, 1, strings.Count(out, ca1))
	assert.Equal(t, 1, strings.Count(out, ca2))
	assert.NotContains(t, out, "noise")
	assert.Equal(t, out, string(TrustAnchorsPEM(ca2, ca1)), "the order does not depend on the input order")
	assert.Empty(t, TrustAnchorsPEM("", "text"))
}

// FuzzParseTrustBundle: the parser never panics; whatever it accepts is
// non-empty, duplicate-free CA certificates, and TrustAnchorsPEM of an
// accepted bundle holds exactly those anchors.
func FuzzParseTrustBundle(f *testing.F) {
	ca := caPEM(f, "seed", true)
	for _, s := range []string{"", ca, ca + ca, "x" + ca + "y", strings.Replace(ca, "CERTIFICATE", "X", 2),
		"-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		anchors, errs := ParseTrustBundle(in)
		if len(errs) > 0 {
			assert.Nil(t, anchors)
			return
		}
		require.NotEmpty(t, anchors)
		seen := map[string]bool{}
		for _, der := range anchors {
			require.False(t, seen[string(der)], "duplicate accepted")
			seen[string(der)] = true
			c, err := x509.ParseCertificate(der)
			require.NoError(t, err)
			require.True(t, c.IsCA)
		}
		again, errs := ParseTrustBundle(string(TrustAnchorsPEM(in)))
		require.Empty(t, errs)
		assert.Len(t, again, len(anchors))
	})
}

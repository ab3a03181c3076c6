package authn

import (
	"testing"
	"time"
)

// BenchmarkOIDCAuthenticate measures verifying an ID token whose key is
// already cached (RS256 and ES256).
func BenchmarkOIDCAuthenticate(b *testing.B) {
	keys := testKeys()
	is := newTestIssuer(b)
	is.publish("rsa1", keys["rsa1"])
	is.publish("ec1", keys["ec1"])
	clk := &fakeClock{}
	clk.now.Store(time.Now().UnixNano())
	a := newOIDC(b, is, clk, nil)
	claims := map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u", "exp": clk.Now().Add(time.Hour).Unix(), "groups": []string{"a", "b"}}
	for _, alg := range []struct{ name, kid string }{{"RS256", "rsa1"}, {"ES256", "ec1"}} {
		tok := sign(b, keys[alg.kid], map[string]any{"alg": alg.name, "kid": alg.kid}, claims)
		b.Run(alg.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := a.AuthenticateRequest(bearer(tok)); !ok || err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTokenFile measures a static-token lookup.
func BenchmarkTokenFile(b *testing.B) {
	a, err := parseTokenFile("bench", []byte("secret-a,alice,1,\"dev,ops\"\n"))
	if err != nil {
		b.Fatal(err)
	}
	r := bearer("secret-a")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := a.AuthenticateRequest(r); !ok {
			b.Fatal("not ok")
		}
	}
}

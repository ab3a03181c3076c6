package protobuf

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCertificatesRoundTrip: ClusterTrustBundle, PodCertificateRequest
// and a pod with clusterTrustBundle and podCertificate projected sources
// survive JSON → protobuf → JSON (client-go's typed clients send them as
// protobuf).
func TestCertificatesRoundTrip(t *testing.T) {
	for name, in := range map[string]string{
		"trust bundle": `{"apiVersion":"certificates.k8s.io/v1","kind":"ClusterTrustBundle","metadata":{"name":"example.com:s:a"},
			"spec":{"signerName":"example.com/s","trustBundle":"-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n"}}`,
		"trust bundle without signer": `{"apiVersion":"certificates.k8s.io/v1","kind":"ClusterTrustBundle","metadata":{"name":"a"},"spec":{"trustBundle":""}}`,
		"pod certificate request": `{"apiVersion":"certificates.k8s.io/v1","kind":"PodCertificateRequest","metadata":{"name":"req-1","namespace":"ns"},
			"spec":{"signerName":"example.com/s","podName":"p","podUID":"u1","serviceAccountName":"default","serviceAccountUID":"u2",
			"nodeName":"n","nodeUID":"u3","maxExpirationSeconds":3600,"stubPKCS10Request":"QUJD","unverifiedUserAnnotations":{"example.com/a":"b"}},
			"status":{"conditions":[{"type":"Issued","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z","reason":"R","message":"m"}],
			"certificateChain":"c","notBefore":"2026-01-02T03:04:05Z","beginRefreshAt":"2026-01-02T04:04:05Z","notAfter":"2026-01-02T05:04:05Z"}}`,
		"pod with projected certificates": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},
			"spec":{"containers":[{"name":"c","image":"i","resources":{}}],"volumes":[{"name":"v","projected":{"sources":[
			{"clusterTrustBundle":{"signerName":"example.com/s","labelSelector":{"matchLabels":{"a":"b"}},"optional":true,"path":"ca.pem"}},
			{"clusterTrustBundle":{"name":"plain","path":"plain.pem"}},
			{"podCertificate":{"signerName":"example.com/s","keyType":"ED25519","maxExpirationSeconds":3600,"credentialBundlePath":"cred.pem",
			"keyPath":"key.pem","certificateChainPath":"chain.pem","userAnnotations":{"example.com/x":"y"}}}],"defaultMode":420}}]},"status":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			pb, err := FromJSON([]byte(in))
			require.NoError(t, err)
			back, _, err := ToJSON(pb)
			require.NoError(t, err)
			assertSameJSON(t, in, string(back))
		})
	}
}

// Package webhooktest starts real admission webhook servers for tests:
// HTTPS on 127.0.0.1 with a certificate from a fresh self-signed CA (the
// pki package), answering admission.k8s.io/v1 AdmissionReviews with a
// function the test gives. The server stops when the test ends.
package webhooktest

import (
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/pki"
)

// Review answers one request. The server fills the response's UID.
type Review func(r *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse

// Server is a running webhook server.
type Server struct {
	// URL is https://127.0.0.1:<port>.
	URL string
	// Addr is 127.0.0.1:<port>.
	Addr string
	// Port is the listening port.
	Port int
	// CABundle is the PEM certificate of the CA that signed the serving
	// certificate (for clientConfig.caBundle).
	CABundle []byte
	// Calls counts the reviews answered.
	Calls atomic.Int64
}

// Start serves fn until t ends. The serving certificate is valid for
// 127.0.0.1 and for serviceDNSNames (such as "hook.default.svc").
func Start(t testing.TB, fn Review, serviceDNSNames ...string) *Server {
	t.Helper()
	ca, err := pki.NewCA("webhooktest-ca")
	require.NoError(t, err)
	kp, err := ca.IssueServing("webhook", serviceDNSNames, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := kp.TLSCertificate()
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &Server{Addr: l.Addr().String(), Port: l.Addr().(*net.TCPAddr).Port, CABundle: ca.CertPEM}
	s.URL = "https://" + s.Addr
	srv := &http.Server{
		Handler:   http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, fn) }),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
	}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, fn Review) {
	var review admissionreview.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	resp := fn(r, review.Request)
	if resp == nil {
		return // the handler wrote nothing: an empty 200
	}
	resp.UID = review.Request.UID
	s.Calls.Add(1)
	out := admissionreview.AdmissionReview{
		TypeMeta: meta.TypeMeta{APIVersion: admissionreview.APIVersion, Kind: admissionreview.Kind},
		Response: resp,
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&out)
}

// Allow admits everything.
func Allow(*http.Request, *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
	return &admissionreview.AdmissionResponse{Allowed: true}
}

// Deny refuses everything with message (code 403).
func Deny(message string) Review {
	return func(*http.Request, *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusForbidden, Message: message}}
	}
}

// Patch admits with a JSONPatch.
func Patch(jsonPatch string) Review {
	return func(*http.Request, *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		pt := admissionreview.PatchTypeJSONPatch
		return &admissionreview.AdmissionResponse{Allowed: true, Patch: []byte(jsonPatch), PatchType: &pt}
	}
}

// Package pki makes a cluster's certificates: a certificate authority, serving
// certificates for the API server and kubelets, and client certificates
// whose CN is the user and whose O entries are the groups (how the x509
// authenticator in authn reads them). Keys are ECDSA P-256;
// files are PEM.
//
//	ca, err := pki.LoadOrCreateCA(filepath.Join(dataDir, "pki"), "orkit-ca")
//	kp, err := ca.IssueClient("system:kube-scheduler")      // a component
//	kp, err := ca.IssueClient("alice", "dev", "ops")        // a user in two groups
//	cert, err := kp.TLSCertificate()
//
// A CA may come from openssl as well (LoadCA reads PKCS#8, SEC 1 and
// PKCS#1 keys), so an operator can mint user certificates outside orkit
// that the API server accepts. Errors wrap the sentinels in errors.go.
package pki

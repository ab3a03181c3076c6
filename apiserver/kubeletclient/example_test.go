package kubeletclient_test

import (
	"crypto/tls"
	"crypto/x509"
	"log"
	"os"

	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/apiserver/kubeletclient"
)

// An API server reaches kubelets for pods/log and pods/exec with a client
// certificate whose CN the kubelets accept (kubelet.APIServerClientCN),
// and verifies their serving certificates against the CA that signed
// them: kube-apiserver's --kubelet-client-certificate,
// --kubelet-client-key and --kubelet-certificate-authority.
func Example() {
	cert, err := tls.LoadX509KeyPair("pki/apiserver-kubelet-client.crt", "pki/apiserver-kubelet-client.key")
	if err != nil {
		log.Fatal(err)
	}
	caPEM, err := os.ReadFile("pki/ca.crt")
	if err != nil {
		log.Fatal(err)
	}
	kubeletCA := x509.NewCertPool()
	kubeletCA.AppendCertsFromPEM(caPEM)
	cfg := apiserver.Config{
		// Listen, Store, Scheme, TLS, ... as usual.
		Kubelet: &kubeletclient.Config{ClientCert: &cert, RootCAs: kubeletCA},
	}
	_ = cfg
}

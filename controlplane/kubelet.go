package controlplane

import (
	"crypto/tls"

	"github.com/orkit/orkit/apiserver/kubeletclient"
)

// kubeletClientCN is the subject of the API server's client certificate
// for kubelets, the one orkit's kubelet accepts (kubelet.APIServerClientCN;
// kubeadm's kube-apiserver-kubelet-client).
const kubeletClientCN = "kube-apiserver-kubelet-client"

// kubeletClient mints the API server's client certificate for kubelets
// and returns the apiserver.Config.Kubelet that presents it and verifies
// the kubelets' serving certificates against the cluster CA (which signs
// them), so pods/log and pods/exec reach every kubelet that trusts the
// cluster CA.
func (cp *ControlPlane) kubeletClient() (*kubeletclient.Config, error) {
	kp, err := cp.CA.IssueClient(kubeletClientCN)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		return nil, err
	}
	return &kubeletclient.Config{ClientCert: &cert, RootCAs: cp.CA.Pool()}, nil
}

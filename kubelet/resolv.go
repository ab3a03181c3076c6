package kubelet

import (
	"os"

	"github.com/orkit/orkit/cni"
)

// readHostResolvConf reads the node's /etc/resolv.conf.
func readHostResolvConf() (cni.DNSConfig, error) {
	f, err := os.Open("/etc/resolv.conf")
	if err != nil {
		return cni.DNSConfig{}, err
	}
	defer f.Close()
	return cni.ParseResolvConf(f)
}

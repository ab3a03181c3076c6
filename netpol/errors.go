package netpol

import "errors"

var (
	// ErrInvalidConfig: a required Config field is missing.
	ErrInvalidConfig = errors.New("netpol: invalid config")
	// ErrNoBridgeNetfilter: the kernel does not pass bridged traffic to
	// nftables' ip hooks (br_netfilter is not loaded), so pods on one
	// bridge could not be isolated from each other.
	ErrNoBridgeNetfilter = errors.New("netpol: bridged traffic bypasses nftables (load br_netfilter)")
)

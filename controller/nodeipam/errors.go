package nodeipam

import "errors"

var (
	// ErrInvalidConfig: New was given no manager, or a cluster CIDR, node
	// mask size or reserved range that cannot be used.
	ErrInvalidConfig = errors.New("nodeipam: invalid config")
	// ErrCIDRsExhausted: every subnet of the cluster CIDR is taken.
	ErrCIDRsExhausted = errors.New("nodeipam: no pod CIDR left in the cluster CIDR")
	// ErrOutOfRange: a CIDR is not a subnet of the cluster CIDR of the
	// node mask size.
	ErrOutOfRange = errors.New("nodeipam: CIDR not in the cluster CIDR")
)

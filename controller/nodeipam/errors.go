package nodeipam

import "errors"

var (
	// ErrInvalidOptions: the cluster CIDR or node mask size cannot be used.
	ErrInvalidOptions = errors.New("nodeipam: invalid options")
	// ErrCIDRsExhausted: every subnet of the cluster CIDR is taken.
	ErrCIDRsExhausted = errors.New("nodeipam: no pod CIDR left in the cluster CIDR")
	// ErrOutOfRange: a CIDR is not a subnet of the cluster CIDR of the
	// node mask size.
	ErrOutOfRange = errors.New("nodeipam: CIDR not in the cluster CIDR")
)

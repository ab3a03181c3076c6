// Package lbtest starts a private haproxy (Debian's package) as a TCP load
// balancer in front of several API servers, for tests: one frontend on a
// loopback port, the servers as backends health-checked with GET /readyz
// over TLS (verified against the cluster CA, authenticated with a client
// certificate), connection failures redispatched to another server. A
// missing haproxy skips the test, or fails it when CI=true (the convention
// of internal/testenv and internal/etcdtest); scripts/setup.sh installs it.
package lbtest

// Package hosttest makes "hosts" for tests: N network namespaces, each
// with one interface (eth0) on a host bridge the test creates in the
// test's own namespace, on a private /24 (the bridge holds .1, host i
// holds .10+i). Nothing else is routed: a host reaches the other hosts
// and the bridge's address (where the test runs what the hosts must
// reach, such as a load balancer), and nothing beyond, so traffic stays
// inside the namespaces and the bridge the test made.
//
// A process runs on a host through Host.Command: `nsenter --net`, so it
// shares the test's file system and mount namespace (its data directory
// is a temp dir of the test) and only its network is the host's.
//
// Making namespaces needs root and iproute2; without them Start skips the
// test, or fails it when CI=true (the convention of internal/testenv).
// Everything is removed at the test's cleanup: the namespaces (with
// every device in them) and the bridge.
package hosttest

// Package critest is the conformance suite every cri.Runtime passes: the
// behaviour the kubelet relies on, checked the same way against the fake
// (cri/fake) and the real runtime (cri/containerd).
//
// A runtime's test calls Run with a Harness that makes a fresh runtime per
// subtest and names the images to use. The suite drives containers with
// the bundled hello image's multi-call tool ("/hello echo hi",
// "/hello exit 3", "/hello sleep-ignore-term 1h", env HELLO_EXIT_AFTER), so
// the same commands work in a real container and in the fake's simulation.
// It waits by polling with deadlines (Harness.Timeout), never by sleeping,
// and asserts no timings.
package critest

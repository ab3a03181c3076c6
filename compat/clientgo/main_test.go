package clientgo_test

import "k8s.io/klog/v2"

// klog's flags on the test binary: `go test ./clientgo -args -v=4` shows
// what client-go's reflectors do.
func init() { klog.InitFlags(nil) }

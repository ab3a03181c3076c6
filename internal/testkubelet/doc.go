// Package testkubelet is a test helper that plays a kubelet's HTTPS
// endpoint for tests of the API server's pods/log and pods/exec: a TLS
// server on 127.0.0.1 whose serving certificate the cluster CA signed and
// that, as orkit's kubelet does, requires a client certificate from that
// CA with the CN kube-apiserver-kubelet-client, then runs the handler the
// test gives. Register writes a Node that points at it.
//
//	k := testkubelet.Start(t, cp.CA, handler) // stopped by t.Cleanup
//	require.NoError(t, k.Register(ctx, admin, "node-1"))
//
// Tests of the kubelet itself run the real one; this stands in for it
// where the test is about the API server's side.
package testkubelet

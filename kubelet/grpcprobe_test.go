package kubelet

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/orkit/orkit/api/core"
)

func TestGRPCProbe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("ok", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("down", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Stop(); <-done })
	_, port, err := net.SplitHostPort(l.Addr().String())
	require.NoError(t, err)
	p, err := net.LookupPort("tcp", port)
	require.NoError(t, err)

	k := &Kubelet{prober: netProber{}}
	pod := &core.Pod{Status: core.PodStatus{PodIP: "127.0.0.1"}}
	action := func(service *string, port int) core.ProbeHandler {
		return core.ProbeHandler{GRPC: &core.GRPCAction{Port: int32(port), Service: service}}
	}
	str := func(s string) *string { return &s }
	ctx := context.Background()
	assert.NoError(t, k.runAction(ctx, pod, nil, &core.Container{}, &ctrState{}, action(nil, p), 5*time.Second), "the server's status")
	assert.NoError(t, k.runAction(ctx, pod, nil, &core.Container{}, &ctrState{}, action(str("ok"), p), 5*time.Second))
	err = k.runAction(ctx, pod, nil, &core.Container{}, &ctrState{}, action(str("down"), p), 5*time.Second)
	require.ErrorIs(t, err, ErrProbe)
	assert.Contains(t, err.Error(), "NOT_SERVING")
	assert.ErrorIs(t, k.runAction(ctx, pod, nil, &core.Container{}, &ctrState{}, action(str("unknown"), p), 5*time.Second), ErrProbe)

	// A Prober without gRPC support fails gRPC probes with a clear error.
	k.prober = &recordingProber{}
	err = k.runAction(ctx, pod, nil, &core.Container{}, &ctrState{}, action(nil, p), time.Second)
	require.ErrorIs(t, err, ErrProbe)
	assert.Contains(t, err.Error(), "cannot run gRPC probes")
}

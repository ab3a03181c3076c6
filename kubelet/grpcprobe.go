package kubelet

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// GRPCProber is a Prober that also runs gRPC probes (the gRPC health
// checking protocol). A Config.Prober without it fails every gRPC probe.
type GRPCProber interface {
	// GRPC asks addr's health service about service ("" is the server)
	// within timeout: nil when it answers SERVING.
	GRPC(ctx context.Context, addr, service string, timeout time.Duration) error
}

var (
	_ GRPCProber = netProber{}
	_ GRPCProber = alwaysProber{}
)

// GRPC implements GRPCProber over a plaintext connection, as the
// kubelet's gRPC prober does.
func (netProber) GRPC(ctx context.Context, addr, service string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent("kube-probe/orkit"))
	if err != nil {
		return fmt.Errorf("%w: grpc %s: %w", ErrProbe, addr, err)
	}
	defer conn.Close()
	res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return fmt.Errorf("%w: grpc health check of %s: %w", ErrProbe, addr, err)
	}
	if res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("%w: service unhealthy (responded with %q)", ErrProbe, res.GetStatus())
	}
	return nil
}

// GRPC implements GRPCProber: always healthy.
func (alwaysProber) GRPC(context.Context, string, string, time.Duration) error { return nil }

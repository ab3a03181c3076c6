package apiserver_test

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/controlplane"
)

// ExampleNewServiceAllocator shows the wiring: the allocator is the last
// validating admission plugin, started by the admission factory with the
// server's run context.
func ExampleNewServiceAllocator() {
	ctx := context.Background()
	_ = func(dataDir string) (*controlplane.ControlPlane, error) {
		return controlplane.Start(ctx, controlplane.Config{DataDir: dataDir, Admission: withAllocator})
	}
	// Output:
}

// withAllocator is the default admission chain plus the allocator.
func withAllocator(ctx context.Context, srv *apiserver.Server) (*admission.Chain, error) {
	chain := controlplane.DefaultAdmission(srv)
	alloc, err := apiserver.NewServiceAllocator(srv, apiserver.ServiceAllocatorConfig{})
	if err != nil {
		return nil, err
	}
	if err := alloc.Start(ctx); err != nil {
		return nil, err
	}
	chain.Validators = append(chain.Validators, alloc)
	return chain, nil
}

func TestKubectlExposeAllocates(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: freeAddr(t), Admission: withAllocator})
	require.NoError(t, err)
	kc := cp.AdminKubeconfig
	mustKubectl(t, kc, "", "create", "deployment", "web", "--image=orkit.local/hello:v1", "--port=8080")
	out := mustKubectl(t, kc, "", "expose", "deployment", "web", "--port=80", "--target-port=8080", "--type=NodePort")
	assert.Contains(t, out, "service/web exposed")
	ip := mustKubectl(t, kc, "", "get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
	assert.True(t, netip.MustParsePrefix("10.96.0.0/12").Contains(netip.MustParseAddr(ip)), ip)
	port := mustKubectl(t, kc, "", "get", "service", "web", "-o", "jsonpath={.spec.ports[0].nodePort}")
	assert.Regexp(t, `^3[0-2]\d{3}$`, port)
	out = mustKubectl(t, kc, "", "get", "services")
	assert.Contains(t, out, ip)

	// a requested address that is taken is refused
	_, errOut, err := kubectl(t, kc, "", "expose", "deployment", "web", "--name=web2", "--port=80", "--cluster-ip="+ip)
	require.Error(t, err)
	assert.Contains(t, errOut, "already allocated")
	// headless
	mustKubectl(t, kc, "", "expose", "deployment", "web", "--name=web3", "--port=80", "--cluster-ip=None")
	assert.Equal(t, "None", mustKubectl(t, kc, "", "get", "service", "web3", "-o", "jsonpath={.spec.clusterIP}"))
	// apply of a manifest without clusterIP keeps the allocated one
	manifest := `apiVersion: v1
kind: Service
metadata: {name: applied}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`
	mustKubectl(t, kc, manifest, "apply", "-f", "-")
	first := mustKubectl(t, kc, "", "get", "service", "applied", "-o", "jsonpath={.spec.clusterIP}")
	mustKubectl(t, kc, strings.Replace(manifest, "port: 80", "port: 81", 1), "apply", "-f", "-")
	assert.Equal(t, first, mustKubectl(t, kc, "", "get", "service", "applied", "-o", "jsonpath={.spec.clusterIP}"))

	// a type change that sets only the type and the external name drops
	// the cluster IP and node port the NodePort Service held
	mustKubectl(t, kc, "", "patch", "service", "web", "-p", `{"spec":{"type":"ExternalName","externalName":"foo.example.com"}}`)
	assert.Equal(t, "ExternalName||", mustKubectl(t, kc, "", "get", "service", "web", "-o",
		"jsonpath={.spec.type}|{.spec.clusterIP}|{.spec.ports[0].nodePort}"))
	mustKubectl(t, kc, "", "patch", "service", "web", "-p", `{"spec":{"type":"NodePort","externalName":null}}`)
	port = mustKubectl(t, kc, "", "get", "service", "web", "-o", "jsonpath={.spec.ports[0].nodePort}")
	assert.Regexp(t, `^3[0-2]\d{3}$`, port)
}

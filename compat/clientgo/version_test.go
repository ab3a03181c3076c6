package clientgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/kubernetes"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestVersionSkew: the server version orkit reports parses as client-go
// parses versions (semantic, as kubectl compares them), agrees with its
// major/minor fields, and the kubectl on this machine shows it without a
// version-skew warning (kubectl warns beyond one minor version).
func TestVersionSkew(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	info, err := kubernetes.NewForConfigOrDie(c.RESTConfig()).Discovery().ServerVersion()
	require.NoError(t, err)
	server, err := version.ParseSemantic(info.GitVersion)
	require.NoError(t, err, "gitVersion %q", info.GitVersion)
	assert.Equal(t, info.Major, strconv.FormatUint(uint64(server.Major()), 10))
	assert.Equal(t, info.Minor, strconv.FormatUint(uint64(server.Minor()), 10))

	cluster.RequireKubectl(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", c.Kubeconfig(), "version", "-o", "json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	var got struct {
		ClientVersion struct{ GitVersion string } `json:"clientVersion"`
		ServerVersion struct{ GitVersion string } `json:"serverVersion"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), stdout.String())
	assert.Equal(t, info.GitVersion, got.ServerVersion.GitVersion)
	client, err := version.ParseSemantic(got.ClientVersion.GitVersion)
	require.NoError(t, err)
	skew := int(client.Minor()) - int(server.Minor())
	assert.LessOrEqual(t, skew*skew, 1, "kubectl %s and server %s are more than one minor version apart", client, server)
	assert.NotContains(t, stderr.String(), "version difference", "kubectl warned about the skew")
	t.Logf("kubectl %s, server %s", client, server)
}

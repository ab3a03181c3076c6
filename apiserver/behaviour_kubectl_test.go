package apiserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const secretWithStringData = `
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: default
data:
  user: b2xk          # "old": stringData's user wins
  keep: a2VlcA==      # "keep"
stringData:
  user: admin
  pass: s3cret
`

// TestKubectlSecretStringData checks that stringData is merged into data
// (stringData winning) on create, apply and patch, and is never returned
// or stored, as Kubernetes does.
func TestKubectlSecretStringData(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, secretWithStringData, "apply", "-f", "-")
	assert.Contains(t, out, "secret/creds created")
	want := map[string]string{"user": "admin", "pass": "s3cret", "keep": "keep"}
	assertSecret := func(want map[string]string) {
		t.Helper()
		out := mustKubectl(t, c.admin, "", "get", "secret", "creds", "-o", "json")
		var s map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &s))
		assert.NotContains(t, s, "stringData", "stringData is write-only")
		data, _ := s["data"].(map[string]any)
		got := map[string]string{}
		for k, v := range data {
			b, err := base64.StdEncoding.DecodeString(v.(string))
			require.NoError(t, err)
			got[k] = string(b)
		}
		assert.Equal(t, want, got)
		kv, err := c.cp.Store.Get(context.Background(), "/registry/secrets/default/creds")
		require.NoError(t, err)
		assert.NotContains(t, string(kv.Value), `"stringData"`, "stringData is never stored")
	}
	assertSecret(want)

	// apply again with a changed stringData: an update merges it too.
	changed := secretWithStringData[:len(secretWithStringData)-len("  pass: s3cret\n")] + "  pass: changed\n"
	out = mustKubectl(t, c.admin, changed, "apply", "-f", "-")
	assert.Contains(t, out, "secret/creds configured")
	want["pass"] = "changed"
	assertSecret(want)

	mustKubectl(t, c.admin, "", "patch", "secret", "creds", "-p", `{"stringData":{"extra":"x","keep":"patched"}}`)
	want["extra"], want["keep"] = "x", "patched"
	assertSecret(want)
	mustKubectl(t, c.admin, "", "patch", "secret", "creds", "--type=json", "-p", `[{"op":"add","path":"/stringData","value":{"j":"y"}}]`)
	want["j"] = "y"
	assertSecret(want)
}

package core

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlReadsOurPods hands our encoding of each golden pod to the real
// kubectl, which decodes it into Kubernetes' own Pod type and encodes it
// again (`kubectl set image --local`, no server involved). Every field must
// come back as we wrote it: Kubernetes' types know every field we emit and
// agree on how it is written.
func TestKubectlReadsOurPods(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required in CI: %v", err)
		}
		t.Skip("kubectl not installed")
	}
	for _, name := range []string{"pod.json", "pod_unschedulable.json", "pod_evicted.json"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", name))
			require.NoError(t, err)
			var pod Pod
			require.NoError(t, json.Unmarshal(raw, &pod))
			ours, err := json.Marshal(&pod)
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "pod.json")
			require.NoError(t, os.WriteFile(file, ours, 0o600))

			// Change the first container's image so kubectl prints the object,
			// then change it back before comparing.
			image := pod.Spec.Containers[0].Image
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, kubectl, "set", "image", "--local", "-f", file, "-o", "json",
				pod.Spec.Containers[0].Name+"=orkit.invalid/sentinel:1")
			cmd.Env = append(os.Environ(), "KUBECONFIG="+os.DevNull)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "kubectl: %s", stderr.String())

			var theirs map[string]any
			require.NoError(t, json.Unmarshal(out, &theirs))
			containers := theirs["spec"].(map[string]any)["containers"].([]any)
			containers[0].(map[string]any)["image"] = image
			var want any
			require.NoError(t, json.Unmarshal(ours, &want))
			diffs := jsonDiff("", dropNulls(want), dropNulls(any(theirs)))
			assert.Empty(t, diffs, "kubectl changed or dropped fields of our encoding")
		})
	}
}

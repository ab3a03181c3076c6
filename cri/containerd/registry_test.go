package containerd_test

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/internal/testenv"
)

// registry is a docker-registry on 127.0.0.1 with htpasswd auth.
type registry struct {
	host       string // 127.0.0.1:port
	user, pass string
}

// startRegistry runs docker-registry (Debian's docker-registry package) on
// a free loopback port with one htpasswd user; it is killed at cleanup.
func startRegistry(t *testing.T) *registry {
	t.Helper()
	for _, bin := range []string{"docker-registry", "htpasswd"} {
		if _, err := exec.LookPath(bin); err != nil {
			testenv.Unavailable(t, bin+" not on PATH (Debian packages docker-registry, apache2-utils)")
		}
	}
	dir := t.TempDir()
	reg := &registry{user: "orkit", pass: "s3cret"}
	out, err := exec.Command("htpasswd", "-Bbn", reg.user, reg.pass).Output()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "htpasswd"), out, 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	reg.host = ln.Addr().String()
	ln.Close()
	cfg := fmt.Sprintf(`version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: %s
http:
  addr: %s
auth:
  htpasswd:
    realm: orkit-test
    path: %s
`, filepath.Join(dir, "data"), reg.host, filepath.Join(dir, "htpasswd"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yml"), []byte(cfg), 0o600))
	var logs bytes.Buffer
	cmd := exec.Command("docker-registry", "serve", filepath.Join(dir, "config.yml"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + reg.host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return reg
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("registry on %s not ready: %v; log: %s", reg.host, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// do sends an authenticated request and checks the status.
func (r *registry) do(method, url, ctype string, body []byte, want int) (*http.Response, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(r.user, r.pass)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, msg)
	}
	return resp, nil
}

// push uploads an OCI layout archive's single image as repo:tag over the
// registry HTTP API v2: each blob by monolithic upload, then the manifest.
func (r *registry) push(archive, repo, tag string) error {
	files, err := readArchive(archive)
	if err != nil {
		return err
	}
	var idx ocispec.Index
	if err := json.Unmarshal(files["index.json"], &idx); err != nil || len(idx.Manifests) != 1 {
		return fmt.Errorf("index.json: %v (%d manifests)", err, len(idx.Manifests))
	}
	mdesc := idx.Manifests[0]
	mbytes := files["blobs/sha256/"+mdesc.Digest.Encoded()]
	var m ocispec.Manifest
	if err := json.Unmarshal(mbytes, &m); err != nil {
		return err
	}
	base := "http://" + r.host + "/v2/" + repo
	for _, d := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
		resp, err := r.do(http.MethodPost, base+"/blobs/uploads/", "", nil, http.StatusAccepted)
		if err != nil {
			return err
		}
		loc := resp.Header.Get("Location")
		if !strings.HasPrefix(loc, "http") {
			loc = "http://" + r.host + loc
		}
		sep := "?"
		if strings.Contains(loc, "?") {
			sep = "&"
		}
		blob := files["blobs/sha256/"+d.Digest.Encoded()]
		if _, err := r.do(http.MethodPut, loc+sep+"digest="+d.Digest.String(), "application/octet-stream", blob, http.StatusCreated); err != nil {
			return err
		}
	}
	_, err = r.do(http.MethodPut, base+"/manifests/"+tag, ocispec.MediaTypeImageManifest, mbytes, http.StatusCreated)
	return err
}

func readArchive(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			files[hdr.Name] = b
		}
	}
}

func TestPullFromRegistryWithAuth(t *testing.T) {
	rt, env := newRuntime(t)
	reg := startRegistry(t)
	require.NoError(t, reg.push(env.Images[env.HelloImage].Path, "orkit/hello", "v1"))
	ref := reg.host + "/orkit/hello:v1"
	ctx := ctxT(t)

	tests := []struct {
		name    string
		auth    *cri.AuthConfig
		wantErr error
	}{
		{"no credentials", nil, cri.ErrUnauthorized},
		{"wrong password", &cri.AuthConfig{Username: reg.user, Password: "wrong"}, cri.ErrUnauthorized},
		{"unknown user", &cri.AuthConfig{Username: "mallory", Password: reg.pass}, cri.ErrUnauthorized},
		{"right credentials", &cri.AuthConfig{Username: reg.user, Password: reg.pass}, nil},
		{"auth field", &cri.AuthConfig{Auth: basicAuth(reg.user, reg.pass)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rt.PullImage(ctx, cri.ImageSpec{Image: ref}, tt.auth)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), "refused the credentials")
				return
			}
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(got, reg.host+"/orkit/hello@sha256:"), got)
		})
	}
	img, err := rt.ImageStatus(ctx, cri.ImageSpec{Image: ref})
	require.NoError(t, err)
	local, err := rt.ImageStatus(ctx, cri.ImageSpec{Image: env.HelloImage})
	require.NoError(t, err)
	assert.Equal(t, local.ID, img.ID, "the pulled image is the imported one")

	// Parallel pulls of different images (pause pushed under two tags).
	require.NoError(t, reg.push(env.Images[env.PauseImage].Path, "orkit/pause", "a"))
	require.NoError(t, reg.push(env.Images[env.PauseImage].Path, "orkit/pause", "b"))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i, ref := range []string{"orkit/pause:a", "orkit/pause:b", "orkit/pause:a", "orkit/hello:v1"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = rt.PullImage(ctx, cri.ImageSpec{Image: reg.host + "/" + ref}, &cri.AuthConfig{Username: reg.user, Password: reg.pass})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	pst, err := rt.ImageStatus(ctx, cri.ImageSpec{Image: reg.host + "/orkit/pause:b"})
	require.NoError(t, err)
	assert.Contains(t, pst.RepoTags, reg.host+"/orkit/pause:a", "one image, both tags")

	_, err = rt.PullImage(ctx, cri.ImageSpec{Image: reg.host + "/orkit/hello:nope"}, &cri.AuthConfig{Username: reg.user, Password: reg.pass})
	assert.ErrorIs(t, err, cri.ErrImageNotFound)

	// A container runs from the pulled image.
	sb, sbCfg := runPod(t, rt, "pulled")
	cfg := helloConfig("pulled", "echo", "from the registry")
	cfg.Image.Image = ref
	id := startContainer(t, rt, sb, sbCfg, cfg)
	st := waitStatus(t, rt, id, exited)
	assert.Equal(t, int32(0), st.ExitCode)
	assert.Equal(t, "from the registry\n", logText(readLog(t, st.LogPath), "stdout"))
}

func basicAuth(user, pass string) string {
	return base64Std([]byte(user + ":" + pass))
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

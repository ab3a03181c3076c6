package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/orkit/orkit/cri"
)

// Builder builds images from Go programs, with the go command run in one
// module directory (whose build list must hold the programs' modules: for
// the bundled images, any module that requires orkit), and caches the
// archives in a directory. It holds no open resources; a Builder is safe
// for concurrent use, and several processes may share a cache directory
// (archives are written to a temporary file and renamed into place).
type Builder struct {
	moduleDir string
	cacheDir  string
	goBin     string
}

// Option configures a Builder.
type Option func(*Builder)

// WithGo sets the go command to build with (default: "go" on PATH, else
// $GOROOT/bin/go or /usr/local/go/bin/go).
func WithGo(path string) Option { return func(b *Builder) { b.goBin = path } }

// New returns a Builder that runs the go command in moduleDir ("" means
// the module of the working directory: FindModuleRoot(".")), caching
// into cacheDir ("" means $XDG_CACHE_HOME/orkit/images, or
// ~/.cache/orkit/images). It needs the go command (see WithGo) when it
// builds, not before.
func New(moduleDir, cacheDir string, opts ...Option) (*Builder, error) {
	b := &Builder{moduleDir: moduleDir, cacheDir: cacheDir}
	for _, o := range opts {
		o(b)
	}
	if b.moduleDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find module root: %w", err)
		}
		if b.moduleDir, err = FindModuleRoot(wd); err != nil {
			return nil, err
		}
	}
	if b.cacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("default cache dir: %w", err)
		}
		b.cacheDir = filepath.Join(dir, "orkit", "images")
	}
	if b.goBin == "" {
		b.goBin = findGo()
	}
	return b, nil
}

// FindModuleRoot walks up from dir to the nearest directory holding a
// go.mod: the module the go command would use there. ErrNoModule if there
// is none.
func FindModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !st.IsDir() {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s: %w", dir, ErrNoModule)
		}
	}
}

func findGo() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	for _, p := range []string{filepath.Join(runtime.GOROOT(), "bin", "go"), "/usr/local/go/bin/go"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// Build returns the archive of spec, building it unless the cache holds one
// for the same sources, Go version and spec. The returned Result.Path is in
// the cache directory and stays until the cache is cleaned.
func (b *Builder) Build(ctx context.Context, spec Spec) (Result, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return Result{}, err
	}
	key, err := b.sourceKey(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	base := filepath.Join(b.cacheDir, filepath.Base(spec.Package)+"-"+key[:24])
	if res, ok := readCached(base); ok {
		return res, nil
	}
	if err := os.MkdirAll(b.cacheDir, 0o755); err != nil {
		return Result{}, fmt.Errorf("image cache: %w", err)
	}
	binary, err := b.compile(ctx, spec.Package)
	if err != nil {
		return Result{}, err
	}
	var buf bytes.Buffer
	res, err := WriteArchive(&buf, spec, binary)
	if err != nil {
		return Result{}, err
	}
	res.Path = base + ".tar"
	meta, _ := json.Marshal(res)
	if err := writeAtomic(res.Path, buf.Bytes()); err != nil {
		return Result{}, err
	}
	if err := writeAtomic(base+".json", meta); err != nil {
		return Result{}, err
	}
	return res, nil
}

// BuildAll builds every spec, in order.
func (b *Builder) BuildAll(ctx context.Context, specs []Spec) ([]Result, error) {
	out := make([]Result, 0, len(specs))
	for _, s := range specs {
		r, err := b.Build(ctx, s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func readCached(base string) (Result, bool) {
	meta, err := os.ReadFile(base + ".json")
	if err != nil {
		return Result{}, false
	}
	var res Result
	if json.Unmarshal(meta, &res) != nil || res.Path != base+".tar" {
		return Result{}, false
	}
	if _, err := os.Stat(res.Path); err != nil {
		return Result{}, false
	}
	return res, true
}

// sourceKey hashes the Go version, the target platform, the spec and every
// non-standard source file the package depends on.
func (b *Builder) sourceKey(ctx context.Context, spec Spec) (string, error) {
	out, err := b.goCmd(ctx, "list", "-deps", "-f",
		`{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}`, spec.Package)
	if err != nil {
		return "", err
	}
	ver, err := b.goCmd(ctx, "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	specJSON, _ := json.Marshal(spec)
	fmt.Fprintf(h, "%s\n%s/linux\n%s\n", bytes.TrimSpace(ver), runtime.GOARCH, specJSON)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		for _, name := range fields[1:] {
			if err := hashFile(h, filepath.Join(fields[0], name)); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("hash source: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(h, "%s\n", path)
	_, err = io.Copy(h, f)
	return err
}

// compile builds pkg statically and reproducibly and returns the binary.
func (b *Builder) compile(ctx context.Context, pkg string) ([]byte, error) {
	tmp, err := os.MkdirTemp(b.cacheDir, "build-")
	if err != nil {
		return nil, fmt.Errorf("build dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "prog")
	if _, err := b.goCmd(ctx, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", bin, pkg); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("read built %s: %w", pkg, err)
	}
	return data, nil
}

func (b *Builder) goCmd(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, b.goBin, args...)
	cmd.Dir = b.moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH, "GOFLAGS=-buildvcs=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v: %s: %w", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()), ErrBuild)
	}
	return out, nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil || f.Chmod(0o644) != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Importer takes an image archive (cri.Runtime's ImportImage:
// cri/containerd's Runtime, cri/fake's).
type Importer interface {
	ImportImage(ctx context.Context, r io.Reader) ([]cri.Image, error)
}

// BuildAndImport builds each spec (or takes it from the cache) and imports
// its archive into rt, in order, so a node's runtime has the images before
// its kubelet starts. It returns the archives; an error names the image.
func (b *Builder) BuildAndImport(ctx context.Context, rt Importer, specs ...Spec) ([]Result, error) {
	results, err := b.BuildAll(ctx, specs)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if err := importArchive(ctx, rt, r); err != nil {
			return nil, err
		}
	}
	return results, nil
}

func importArchive(ctx context.Context, rt Importer, r Result) error {
	f, err := os.Open(r.Path)
	if err != nil {
		return fmt.Errorf("import %s: %w", r.Ref, err)
	}
	defer f.Close()
	if _, err := rt.ImportImage(ctx, f); err != nil {
		return fmt.Errorf("import %s: %w", r.Ref, err)
	}
	return nil
}

package kubelet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// volumeFile is one file of a secret, configMap or downwardAPI volume.
type volumeFile struct {
	data []byte
	mode os.FileMode
}

// dataDirName is the symlink that points at the current payload.
const dataDirName = "..data"

// writeAtomic makes dir hold exactly files, updated atomically as the
// kubelet's AtomicWriter does: the payload is written to a new hidden
// timestamped directory, the ..data symlink is swapped to it with one
// rename, and each top-level entry is a symlink through ..data. Readers see
// the old or the new payload, never a mix. Nothing is written when the
// payload is unchanged.
func writeAtomic(dir string, files map[string]volumeFile) error {
	for p := range files {
		if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "..") || strings.Contains(p, "/../") {
			return fmt.Errorf("%w: invalid path %q in volume payload", ErrVolume, p)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cur := filepath.Join(dir, dataDirName)
	if same(cur, files) {
		return nil
	}
	ts, err := os.MkdirTemp(dir, ".."+time.Now().UTC().Format("2006_01_02_15_04_05."))
	if err != nil {
		return err
	}
	for p, f := range files {
		full := filepath.Join(ts, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(full, f.mode); err != nil {
			return err
		}
	}
	if err := os.Chmod(ts, 0o755); err != nil {
		return err
	}
	old, _ := os.Readlink(cur)
	tmp := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(ts), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, cur); err != nil {
		return err
	}
	if err := linkTopLevel(dir, files); err != nil {
		return err
	}
	if old != "" {
		_ = os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}

// linkTopLevel points each top-level name at ..data/name and removes links
// of names no longer in the payload.
func linkTopLevel(dir string, files map[string]volumeFile) error {
	want := map[string]bool{}
	for p := range files {
		top, _, _ := strings.Cut(p, "/")
		want[top] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "..") || want[e.Name()] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	for top := range want {
		link := filepath.Join(dir, top)
		if t, err := os.Readlink(link); err == nil && t == filepath.Join(dataDirName, top) {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(filepath.Join(dataDirName, top), link); err != nil {
			return err
		}
	}
	return nil
}

// same reports whether the payload under cur equals files.
func same(cur string, files map[string]volumeFile) bool {
	n := 0
	err := filepath.Walk(cur+"/", func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(cur, p)
		f, ok := files[rel]
		if !ok || fi.Mode().Perm() != f.mode.Perm() {
			return fmt.Errorf("differs")
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, f.data) {
			return fmt.Errorf("differs")
		}
		n++
		return nil
	})
	return err == nil && n == len(files)
}

func fileMode(item *int32, def *int32, fallback int32) os.FileMode {
	switch {
	case item != nil:
		return os.FileMode(*item) & 0o777
	case def != nil:
		return os.FileMode(*def) & 0o777
	}
	return os.FileMode(fallback)
}

// project maps data to files through items (all keys when items is empty).
func project(data map[string][]byte, items []core.KeyToPath, def *int32, kind, name string, optional bool) (map[string]volumeFile, error) {
	out := map[string]volumeFile{}
	if len(items) == 0 {
		for key, v := range data {
			out[key] = volumeFile{data: v, mode: fileMode(nil, def, core.SecretVolumeDefaultMode)}
		}
		return out, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf("%w: key %q not found in %s %q", ErrConfigRef, it.Key, kind, name)
		}
		out[it.Path] = volumeFile{data: v, mode: fileMode(it.Mode, def, core.SecretVolumeDefaultMode)}
	}
	return out, nil
}

func secretFiles(ctx context.Context, src *refSource, v *core.SecretVolumeSource) (map[string]volumeFile, error) {
	s, err := src.secret(ctx, v.SecretName)
	if err != nil {
		return nil, err
	}
	if s == nil {
		if isTrue(v.Optional) {
			return map[string]volumeFile{}, nil
		}
		return nil, fmt.Errorf("%w: secret %q not found", ErrConfigRef, v.SecretName)
	}
	return project(s.Data, v.Items, v.DefaultMode, "secret", v.SecretName, isTrue(v.Optional))
}

func configMapFiles(ctx context.Context, src *refSource, v *core.ConfigMapVolumeSource) (map[string]volumeFile, error) {
	c, err := src.configMap(ctx, v.Name)
	if err != nil {
		return nil, err
	}
	if c == nil {
		if isTrue(v.Optional) {
			return map[string]volumeFile{}, nil
		}
		return nil, fmt.Errorf("%w: configmap %q not found", ErrConfigRef, v.Name)
	}
	data := map[string][]byte{}
	for key, val := range c.Data {
		data[key] = []byte(val)
	}
	for key, val := range c.BinaryData {
		data[key] = val
	}
	return project(data, v.Items, v.DefaultMode, "configmap", v.Name, isTrue(v.Optional))
}

func (k *Kubelet) downwardFiles(pod *core.Pod, v *core.DownwardAPIVolumeSource) (map[string]volumeFile, error) {
	out := map[string]volumeFile{}
	for _, it := range v.Items {
		var val string
		var err error
		switch {
		case it.FieldRef != nil:
			val, err = k.podField(pod, it.FieldRef.FieldPath, nil)
		case it.ResourceFieldRef != nil:
			val, err = resourceField(pod, nil, it.ResourceFieldRef, k.allocatable())
		}
		if err != nil {
			return nil, err
		}
		out[it.Path] = volumeFile{data: []byte(val), mode: fileMode(it.Mode, v.DefaultMode, core.SecretVolumeDefaultMode)}
	}
	return out, nil
}

// mountsUnder returns the mount points at or below dir, deepest first.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

func isMountPoint(dir string) bool {
	for _, m := range mountsUnder(dir) {
		if m == dir {
			return true
		}
	}
	return false
}

// unmountUnder unmounts everything at or below dir (lazily if busy).
func unmountUnder(dir string) {
	for _, m := range mountsUnder(dir) {
		if err := syscall.Unmount(m, 0); err != nil {
			_ = syscall.Unmount(m, syscall.MNT_DETACH)
		}
	}
}

func metaUID(s string) meta.UID { return meta.UID(s) }

func sortStrings(s []string) { sort.Strings(s) }

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/api/meta"
)

// APIGroup is one API group as discovery reports it; the core group has
// the name "".
type APIGroup struct {
	Name             string                     `json:"name"`
	Versions         []GroupVersionForDiscovery `json:"versions"`
	PreferredVersion GroupVersionForDiscovery   `json:"preferredVersion"`
}

// GroupVersionForDiscovery names one version of a group.
type GroupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// APIResource is one resource (or subresource, "pods/status") of a group
// version.
type APIResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

// APIResourceList is the body of /api/v1 and /apis/<group>/<version>.
type APIResourceList struct {
	Kind         string        `json:"kind,omitempty"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []APIResource `json:"resources"`
}

// Discovery asks the server which groups, versions and resources it
// serves (/api, /apis, /api/v1, /apis/<g>/<v>) and caches the answers in
// memory and, when the client was made WithDiscoveryCache, on disk, for
// the cache's TTL. A cache file that cannot be read or parsed is ignored
// and rewritten. Safe for concurrent use; requests are made one at a time.
type Discovery struct {
	c   *Client
	dir string // this server's cache directory; "" keeps answers in memory only
	ttl time.Duration

	mu        sync.Mutex
	groups    *cached[[]APIGroup]
	resources map[meta.GroupVersion]*cached[*APIResourceList]
}

type cached[V any] struct {
	value   V
	fetched time.Time
}

func newDiscovery(c *Client, cacheDir string, ttl time.Duration) *Discovery {
	d := &Discovery{c: c, ttl: ttl, resources: map[meta.GroupVersion]*cached[*APIResourceList]{}}
	if cacheDir != "" {
		d.dir = filepath.Join(cacheDir, hostDir(c.base.Host+c.base.Path))
	}
	return d
}

// hostDir turns "127.0.0.1:6443/prefix" into a directory name, as kubectl
// does ("127.0.0.1_6443_prefix").
func hostDir(host string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, strings.Trim(host, "/"))
	if s == "" || s == "." || s == ".." {
		s = "_" + s // never a name that walks out of the cache directory
	}
	return s
}

func (d *Discovery) fresh(t time.Time) bool { return d.c.clock.Now().Sub(t) < d.ttl }

// ServerGroups returns the served groups, the core group ("") first.
func (d *Discovery) ServerGroups(ctx context.Context) ([]APIGroup, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.groups != nil && d.fresh(d.groups.fetched) {
		return d.groups.value, nil
	}
	var cachedList apiGroupList
	if t, ok := d.readCache("servergroups.json", &cachedList); ok && cachedList.Kind == "APIGroupList" {
		d.groups = &cached[[]APIGroup]{cachedList.Groups, t}
		return cachedList.Groups, nil
	}
	groups, err := d.fetchGroups(ctx)
	if err != nil {
		return nil, err
	}
	d.groups = &cached[[]APIGroup]{groups, d.c.clock.Now()}
	d.writeCache("servergroups.json", apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: groups})
	return groups, nil
}

// apiGroupList is the body of /apis, and of the servergroups.json cache
// file with the core group first, as kubectl writes it.
type apiGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []APIGroup `json:"groups"`
}

func (d *Discovery) fetchGroups(ctx context.Context) ([]APIGroup, error) {
	b, err := d.c.do(ctx, &request{method: "GET", path: "/api", replaySafe: true})
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var core struct {
		Versions []string `json:"versions"`
	}
	if err := json.Unmarshal(b, &core); err != nil {
		return nil, fmt.Errorf("%w: discovery /api: %w", ErrDecode, err)
	}
	var groups []APIGroup
	if len(core.Versions) > 0 {
		g := APIGroup{}
		for _, v := range core.Versions {
			g.Versions = append(g.Versions, GroupVersionForDiscovery{GroupVersion: v, Version: v})
		}
		g.PreferredVersion = g.Versions[0]
		groups = append(groups, g)
	}
	b, err = d.c.do(ctx, &request{method: "GET", path: "/apis", replaySafe: true})
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var list apiGroupList
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%w: discovery /apis: %w", ErrDecode, err)
	}
	return append(groups, list.Groups...), nil
}

// ServerResources returns the resources of one group version.
func (d *Discovery) ServerResources(ctx context.Context, gv meta.GroupVersion) (*APIResourceList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.resources[gv]; c != nil && d.fresh(c.fetched) {
		return c.value, nil
	}
	file := filepath.Join(gvDir(gv), "serverresources.json")
	list := &APIResourceList{}
	if t, ok := d.readCache(file, list); ok {
		d.resources[gv] = &cached[*APIResourceList]{list, t}
		return list, nil
	}
	if err := errors.Join(checkSegment("group", gv.Group), checkSegment("version", gv.Version)); err != nil || gv.Version == "" {
		return nil, fmt.Errorf("%w: group version %q", ErrRequest, gv)
	}
	p := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		p = "/api/" + gv.Version
	}
	b, err := d.c.do(ctx, &request{method: "GET", path: p, replaySafe: true})
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	list = &APIResourceList{}
	if err := json.Unmarshal(b, list); err != nil {
		return nil, fmt.Errorf("%w: discovery %s: %w", ErrDecode, p, err)
	}
	d.resources[gv] = &cached[*APIResourceList]{list, d.c.clock.Now()}
	d.writeCache(file, list)
	return list, nil
}

// gvDir is where a group version's resources are cached: "v1" for the
// core group, "<group>/<version>" otherwise.
func gvDir(gv meta.GroupVersion) string {
	if gv.Group == "" {
		return hostDir(gv.Version)
	}
	return filepath.Join(hostDir(gv.Group), hostDir(gv.Version))
}

// Invalidate forgets everything cached, in memory and on disk, so the next
// call asks the server again.
func (d *Discovery) Invalidate() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.groups = nil
	d.resources = map[meta.GroupVersion]*cached[*APIResourceList]{}
	if d.dir != "" {
		if err := os.RemoveAll(d.dir); err != nil {
			d.c.logger.Warn("discovery cache: remove", "dir", d.dir, "err", err)
		}
	}
}

// readCache decodes the cache file name into v when it exists, parses and
// is younger than the TTL; it returns the file's time.
func (d *Discovery) readCache(name string, v any) (time.Time, bool) {
	if d.dir == "" {
		return time.Time{}, false
	}
	p := filepath.Join(d.dir, name)
	fi, err := os.Stat(p)
	if err != nil || !d.fresh(fi.ModTime()) || fi.Size() > maxResponseBody {
		return time.Time{}, false
	}
	b, err := os.ReadFile(p)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		d.c.logger.Warn("discovery cache: ignoring unreadable file", "path", p, "err", err)
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// writeCache stores v under name atomically (a temporary file renamed into
// place); failures are logged, never returned: the cache is an optimisation.
func (d *Discovery) writeCache(name string, v any) {
	if d.dir == "" {
		return
	}
	p := filepath.Join(d.dir, name)
	err := func() error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			return err
		}
		f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
		if err != nil {
			return err
		}
		_, werr := f.Write(b)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(f.Name())
			return err
		}
		now := d.c.clock.Now()
		if err := os.Chtimes(f.Name(), now, now); err != nil {
			os.Remove(f.Name())
			return err
		}
		return os.Rename(f.Name(), p)
	}()
	if err != nil {
		d.c.logger.Warn("discovery cache: write", "path", p, "err", err)
	}
}

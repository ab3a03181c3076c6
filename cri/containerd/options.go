package containerd

import "log/slog"

// DefaultNamespace is the containerd namespace used unless WithNamespace
// says otherwise.
const DefaultNamespace = "orkit"

// Option configures a Runtime.
type Option func(*config)

type config struct {
	namespace       string
	stateDir        string
	pauseImage      string
	snapshotter     string
	allowPrivileged bool
	runcRoot        string
	log             *slog.Logger
	mirrors         map[string]string // registry host -> mirror host
}

// WithNamespace sets the containerd namespace (default DefaultNamespace).
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithStateDir sets the directory for network namespaces, per-sandbox
// files (hostname, hosts, resolv.conf) and FIFOs (default
// /run/orkit/<namespace>). It must be the same across restarts, and only
// one Runtime may use it at a time (New removes what no containerd object
// owns there).
func WithStateDir(dir string) Option { return func(c *config) { c.stateDir = dir } }

// WithPauseImage sets the sandbox image (default images.PauseRef,
// orkit.local/pause:v1); it must already be on the node: the runtime never
// pulls it. The default is built from Go with the images package and
// imported with images.Builder.BuildAndImport.
func WithPauseImage(ref string) Option { return func(c *config) { c.pauseImage = ref } }

// WithSnapshotter sets the snapshotter (default "overlayfs").
func WithSnapshotter(name string) Option { return func(c *config) { c.snapshotter = name } }

// WithAllowPrivileged lets containers and sandboxes ask for privileged mode;
// without it such requests fail with cri.ErrInvalidArgument.
func WithAllowPrivileged(allow bool) Option { return func(c *config) { c.allowPrivileged = allow } }

// WithLogger sets the logger for background work (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithRuncRoot sets the directory where runc keeps its container state
// (default <state dir>/runc). runc's own default, /run/containerd/runc, is
// shared by every containerd on the host; a private one keeps two daemons
// (a test's and a minicluster's) from colliding on an ID, which matters
// because sandbox and container IDs are derived from pod metadata.
func WithRuncRoot(dir string) Option { return func(c *config) { c.runcRoot = dir } }

// WithRegistryMirror makes PullImage fetch images of registry (a host
// such as "registry.k8s.io") from mirror (a registry host[:port] serving
// the same repositories) and never from registry itself: an air-gapped
// node's pulls stay on the mirror, also when it lacks the image. Plain
// HTTP is used only for a mirror on the loopback interface, as for any
// registry. Repeatable, one mirror per registry.
func WithRegistryMirror(registry, mirror string) Option {
	return func(c *config) {
		if c.mirrors == nil {
			c.mirrors = map[string]string{}
		}
		c.mirrors[registry] = mirror
	}
}

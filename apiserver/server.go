package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/orkit/orkit/admission"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/apiserver/kubeletclient"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/serving"
	"github.com/orkit/orkit/store"
)

// Config configures a Server: everything New and Start need, given up
// front, so no method must be called in a particular order. Zero values
// are documented per field. New reads it once; changing it afterwards has
// no effect.
type Config struct {
	// Listen is the address to serve on; default 127.0.0.1:6443.
	Listen string
	// Store holds the objects. Required.
	Store store.Interface
	// Scheme lists the kinds; New serves every kind in it, adding what the
	// built-in kinds need beyond the defaults (field selectors, graceful
	// pod deletion, subresources, tables, scale). Required.
	Scheme *scheme.Scheme
	// Resources are served besides Scheme's kinds: user-defined kinds, or
	// a kind of Scheme served with its own strategy, fields or table (a
	// Resource wins over Scheme's kind of the same resource). New
	// registers them; Register adds more later, also while serving.
	Resources []Resource
	// TLS is the serving certificate. Required for Start.
	TLS *tls.Certificate
	// ClientCA verifies client certificates (given to the x509
	// authenticator too); nil accepts none.
	ClientCA *x509.CertPool
	// Authenticator finds the user; nil rejects every request with 401.
	Authenticator authn.Authenticator
	// ServiceAccountTokens is the service-account token issuer: it signs
	// the tokens of serviceaccounts/<name>/token (TokenRequest), its
	// authenticator is asked before Authenticator (it claims only JWTs of
	// its issuer, and checks the objects they are bound to in this
	// server's storage), and it answers /.well-known/openid-configuration
	// and /openid/v1/jwks. nil: no tokens (the subresource and the
	// discovery paths answer 404).
	ServiceAccountTokens *authn.TokenIssuer
	// Authorizer builds the authorizer when Start runs (the usual chain
	// reads the server's own caches: RBACSource, NodeGraph); nil allows
	// only system:masters. An error fails Start.
	Authorizer AuthorizerFactory
	// Admission builds the admission chain when Start runs (the built-in
	// plugins read the server through AdmissionSources); nil admits
	// everything. An error fails Start.
	Admission AdmissionFactory
	// Initializers turns on initializers: InitializerConfiguration objects
	// fill metadata.initializers.pending of new objects. Their resource
	// (admissionregistration.k8s.io/v1alpha1 initializerconfigurations)
	// must be in Scheme or Resources, else New fails. False: objects are
	// created initialized.
	Initializers bool
	// Bootstrap makes Start create what a fresh cluster needs (Bootstrap:
	// system namespaces, the RBAC bootstrap policy, system PriorityClasses)
	// before it serves; an error fails Start. False: Start writes nothing.
	Bootstrap bool
	// Serving are the listener's protections: read-header and idle
	// timeouts, the header size limit and the cap on connections per
	// unauthenticated client address; the zero value is serving's
	// defaults (10 s, 90 s, 1 MiB, 100).
	Serving serving.Limits
	// Kubelet is how the server reaches kubelets for pods/log and
	// pods/exec (its client certificate and the CA of the kubelets'
	// serving certificates; see kubeletclient.Config). nil reaches none:
	// those subresources answer 400.
	Kubelet *kubeletclient.Config
	// ProxyClientCert is the client certificate the server presents to
	// the servers of aggregated APIs (APIServices with a Service), as
	// --proxy-client-cert-file; the user rides in X-Remote-User and
	// X-Remote-Group. nil presents none.
	ProxyClientCert *tls.Certificate
	// MaxInFlight caps concurrent non-watch requests, split among priority
	// levels as API Priority and Fairness splits it (flowcontrol.go):
	// system:masters is never limited, nodes and the control plane have
	// seats of their own, and a request finding its level full gets 429.
	// Zero means 400.
	MaxInFlight int
	// MaxWatchTimeout ends watches after this long; default 30 minutes.
	MaxWatchTimeout time.Duration
	// WatchBuffer is each watcher's queue length; default 1000.
	WatchBuffer int
	// BookmarkInterval is how often watchers that allow bookmarks get one;
	// default 10 s.
	BookmarkInterval time.Duration
	// WatchHistory is how many events each resource's cache keeps for
	// resuming watches; default 10,000.
	WatchHistory int
	// CompactionInterval is how often the server compacts its store
	// (store.Compactor, as kube-apiserver's --etcd-compaction-interval):
	// each time to the revision seen one interval before, so clients keep
	// at least one interval of history; older resourceVersions and
	// continue tokens get 410 Expired. Zero means
	// store.DefaultCompactionInterval (5 minutes); negative turns
	// compaction off (another process compacts the store). Servers sharing
	// a store take turns (see store.Compactor).
	CompactionInterval time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// AdmissionFactory builds a server's admission chain. Start calls it once,
// before it serves, with the server's run context (done when the server
// stops: plugins that run goroutines, such as the ServiceAllocator, stop
// on it) and the server, whose registered resources it may read through
// AdmissionSources, Storage and Cache.
type AdmissionFactory func(ctx context.Context, srv *Server) (*admission.Chain, error)

// AuthorizerFactory builds a server's authorizer. Start calls it once,
// before it serves, with the server's run context and the server (whose
// RBACSource and NodeGraph feed the RBAC and Node authorizers).
type AuthorizerFactory func(ctx context.Context, srv *Server) (authz.Authorizer, error)

// StaticAuthorizer returns a factory that always gives a, for an authorizer
// that needs nothing of the server (authz.AlwaysAllow, a webhook).
func StaticAuthorizer(a authz.Authorizer) AuthorizerFactory {
	return func(context.Context, *Server) (authz.Authorizer, error) { return a, nil }
}

// StaticAdmission returns a factory that always gives c, for a chain
// whose plugins need nothing of the server.
func StaticAdmission(c *admission.Chain) AdmissionFactory {
	return func(context.Context, *Server) (*admission.Chain, error) { return c, nil }
}

// Server is the API server: the handler chain (authentication,
// authorization, admission, storage, watch) over the resources of its
// Config and those added with Register. New builds it, Start serves it
// until ctx ends. Safe for concurrent use.
type Server struct {
	cfg Config
	// openAPIV2 caches the protobuf form of /openapi/v2.
	openAPIV2    openAPIV2Cache
	log          *slog.Logger
	metrics      *metrics
	flow         *flowControl
	initializers *initializerSet
	kubelet      *kubeletclient.Client // nil without Config.Kubelet
	// saAuth authenticates Config.ServiceAccountTokens' tokens; nil
	// without an issuer.
	saAuth *authn.ServiceAccountAuthenticator

	// authorizer and admission are the defaults of New, replaced by what
	// the Config's factories build in Start before it serves.
	authorizer authz.Authorizer
	admission  *admission.Chain
	// rbacRules resolves a user's RBAC rules from the watch caches for the
	// escalation checks (checkEscalation), whatever the authorizer is.
	rbacRules authz.PolicyResolver

	// agg holds the group/versions APIServices delegate to other servers.
	agg aggregator

	mu        sync.RWMutex
	resources map[meta.GroupVersionResource]*served
	hooks     []PostCreateHook
	started   bool
	runCtx    context.Context // the caches' context, once started
	ready     chan struct{}
	addr      net.Addr

	// fieldManagers record field ownership (managedFields) per kind.
	fieldManagers fieldManagers
}

// PostCreateHook runs after an object is created and the response is
// decided (it must not block long; start work elsewhere). obj is shared
// with the response and must not be changed.
type PostCreateHook func(ctx context.Context, gvr meta.GroupVersionResource, obj meta.Object)

// New returns a server for cfg with every resource of cfg.Resources and
// cfg.Scheme registered. It starts nothing; Start serves. It fails when a
// required field is missing, a resource is registered twice, or
// cfg.Initializers is set without the InitializerConfiguration resource.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Scheme == nil {
		return nil, errors.New("apiserver: Store and Scheme are required")
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:6443"
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 400
	}
	if cfg.MaxWatchTimeout <= 0 {
		cfg.MaxWatchTimeout = 30 * time.Minute
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = 10 * time.Second
	}
	if cfg.CompactionInterval == 0 {
		cfg.CompactionInterval = store.DefaultCompactionInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{
		cfg:        cfg,
		log:        cfg.Logger,
		metrics:    newMetrics(),
		flow:       newFlowControl(cfg.MaxInFlight),
		resources:  map[meta.GroupVersionResource]*served{},
		ready:      make(chan struct{}),
		authorizer: authz.Masters(),
		admission:  &admission.Chain{},
	}
	s.rbacRules = authz.RBAC(cacheSource{s})
	for _, r := range cfg.Resources {
		if err := s.Register(r); err != nil {
			return nil, err
		}
	}
	if err := s.registerScheme(cfg.Scheme); err != nil {
		return nil, err
	}
	if cfg.Initializers {
		if err := s.enableInitializers(); err != nil {
			return nil, err
		}
	}
	if cfg.Kubelet != nil {
		s.kubelet = kubeletclient.New(*cfg.Kubelet, nodeStorage{s})
	}
	if cfg.ServiceAccountTokens != nil {
		s.saAuth = cfg.ServiceAccountTokens.Authenticator(storageObjects{s})
	}
	return s, nil
}

// Register serves res besides the resources of the Config. It may be
// called at any time: after Start it starts the resource's watch cache at
// once. It fails when res has no Type or its resource is served already.
func (s *Server) Register(res Resource) error {
	if res.Type == nil {
		return errors.New("apiserver: Resource.Type is required")
	}
	st := NewStorage(res.Type, s.cfg.Store)
	if res.View != nil {
		if err := res.View.check(); err != nil {
			return err
		}
		st = newViewStorage(res.Type, res.View, s.cfg.Store)
		if res.Strategy == nil {
			res.Strategy = NewViewStrategy(res.View)
		}
	}
	if res.Strategy == nil {
		res.Strategy = NewDefaultStrategy(res.Type)
	}
	st.log = s.log
	st.storedAs = res.StoredAs
	st.onRead = res.OnRead
	if ds, ok := res.Strategy.(DeleteStrategy); ok {
		st.keep = ds.Pending
	}
	sv := &served{Resource: res, storage: st, fieldLabels: fieldLabels(res)}
	sv.cache = NewWatchCache(st, res.Fields, s.cfg.WatchHistory, s.log)
	if res.Fields != nil {
		sv.cache.fieldsJSON = res.FieldsFromJSON
	}
	st.prime = sv.cache.prime
	gvr := res.Type.GroupVersionResource()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.resources[gvr]; ok {
		return fmt.Errorf("apiserver: resource %v already registered", gvr)
	}
	s.resources[gvr] = sv
	if s.started {
		ctx, cancel := context.WithCancel(s.runCtx)
		sv.stop = cancel
		go sv.cache.Run(ctx)
	}
	return nil
}

// AddPostCreateHook adds a hook run after every successful create.
func (s *Server) AddPostCreateHook(h PostCreateHook) {
	s.mu.Lock()
	s.hooks = append(s.hooks, h)
	s.mu.Unlock()
}

func (s *Server) postCreate(ctx context.Context, res *served, obj meta.Object) {
	s.mu.RLock()
	hooks := s.hooks
	s.mu.RUnlock()
	for _, h := range hooks {
		h(ctx, res.Type.GroupVersionResource(), obj)
	}
}

func (s *Server) lookup(gvr meta.GroupVersionResource) (*served, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.resources[gvr]
	return r, ok
}

// Cache returns the watch cache of gvr, for in-process readers such as the
// authorizers' sources.
func (s *Server) Cache(gvr meta.GroupVersionResource) (*WatchCache, bool) {
	r, ok := s.lookup(gvr)
	if !ok {
		return nil, false
	}
	return r.cache, true
}

// Storage returns the storage of gvr, for in-process writers (bootstrap).
func (s *Server) Storage(gvr meta.GroupVersionResource) (*Storage, bool) {
	r, ok := s.lookup(gvr)
	if !ok {
		return nil, false
	}
	return r.storage, true
}

// Start serves until ctx is done: it binds the listener, builds the
// authorizer and the admission chain with the Config's factories, runs
// Bootstrap when Config.Bootstrap is set, starts the watch caches and
// serves HTTPS. It returns once the listener is bound (Ready tells when
// the caches have synced), or the first error, having then stopped what
// it began. Call it once.
func (s *Server) Start(ctx context.Context) (retErr error) {
	if s.cfg.TLS == nil {
		return errors.New("apiserver: a TLS certificate is required")
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("apiserver: listen on %s: %w", s.cfg.Listen, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		if retErr != nil {
			cancel()
			ln.Close()
		}
	}()
	if err := s.build(ctx); err != nil {
		return err
	}
	if s.cfg.Bootstrap {
		if err := s.Bootstrap(ctx); err != nil {
			return err
		}
	}
	s.startCaches(ctx)
	s.startCompactor(ctx)
	s.startCRDs(ctx)
	s.startAggregator(ctx)
	s.serve(ctx, cancel, ln)
	return nil
}

// build runs the Config's authorizer and admission factories.
func (s *Server) build(ctx context.Context) error {
	if f := s.cfg.Authorizer; f != nil {
		a, err := f(ctx, s)
		if err != nil {
			return fmt.Errorf("apiserver: authorizer: %w", err)
		}
		if a == nil {
			return errors.New("apiserver: the authorizer factory returned no authorizer")
		}
		s.authorizer = a
	}
	if f := s.cfg.Admission; f != nil {
		c, err := f(ctx, s)
		if err != nil {
			return fmt.Errorf("apiserver: admission: %w", err)
		}
		if c == nil {
			c = &admission.Chain{}
		}
		s.admission = c
	}
	return nil
}

// serve serves HTTPS on ln until ctx is done, then shuts the server down
// and calls cancel.
func (s *Server) serve(ctx context.Context, cancel context.CancelFunc, ln net.Listener) {
	tlsCfg := &tls.Config{
		Certificates: []tls.Certificate{*s.cfg.TLS},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    s.cfg.ClientCA,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	srv := s.cfg.Serving.HTTPServer(s, tlsCfg, slog.NewLogLogger(s.log.Handler(), slog.LevelDebug))
	guard := serving.NewGuard(ln, s.cfg.Serving)
	guard.Attach(srv)
	s.mu.Lock()
	s.addr = ln.Addr()
	s.mu.Unlock()
	go func() {
		<-ctx.Done()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		if err := srv.Shutdown(sctx); err != nil {
			// Requests still running after the grace period lose their
			// connections: a client must not be kept on a stopped server.
			_ = srv.Close()
		}
		cancel()
		if s.kubelet != nil {
			s.kubelet.CloseIdleConnections()
		}
	}()
	go func() {
		if err := srv.ServeTLS(guard, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("apiserver: serve", "err", err)
		}
	}()
}

// runContext returns the context the caches run under (nil before they
// start): it is done when the server stops.
func (s *Server) runContext() context.Context {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.runCtx
}

// startCaches starts every resource's watch cache and the bookmark
// ticker (Start calls it; tests that use the handler directly call it).
func (s *Server) startCaches(ctx context.Context) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started, s.runCtx = true, ctx
	caches := make([]*WatchCache, 0, len(s.resources))
	for _, r := range s.resources {
		caches = append(caches, r.cache)
	}
	s.mu.Unlock()
	for _, c := range caches {
		go c.Run(ctx)
	}
	go func() {
		for _, c := range caches {
			select {
			case <-c.Synced():
			case <-ctx.Done():
				return
			}
		}
		close(s.ready)
	}()
	go func() {
		t := time.NewTicker(s.cfg.BookmarkInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				for _, c := range caches {
					c.Bookmark()
				}
			}
		}
	}()
}

// Ready is closed once every watch cache has synced.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the bound address after Start.
func (s *Server) Addr() net.Addr {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.addr
}

// Registry returns the Prometheus registry holding the server's metrics.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.registry }

// ServeHTTP runs the handler chain: metrics and panic recovery,
// authentication, the in-flight limit of the user's priority level,
// authorization, then routing (kube-apiserver's order).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	info := ParseRequestInfo(r)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("apiserver: panic serving request", "path", r.URL.Path, "panic", p)
			if !rw.wrote {
				// The panic value is Go's text: log it, answer as
				// kube-apiserver does.
				writeError(rw, apierrors.NewInternalError(errors.New("this request caused the API server to panic; its log has the details")))
			}
		}
		s.metrics.observe(info, rw.code, time.Since(start))
	}()
	r.Body = http.MaxBytesReader(rw, r.Body, MaxRequestBodyBytes+1)
	if isHealthPath(r.URL.Path) || r.URL.Path == "/version" {
		// Health and version answer without credentials, as kube-apiserver
		// does for system:unauthenticated through its bootstrap RBAC.
		s.serveNonResource(rw, r, info)
		return
	}
	user, err := s.authenticate(r)
	if err == nil {
		if user.Name != authn.AnonymousUser {
			serving.Authenticated(r.Context()) // off the unauthenticated-connections cap
		}
		user, err = s.impersonate(r, user)
	}
	if err != nil {
		writeError(rw, err)
		return
	}
	if !info.LongRunning() {
		level, release, err := s.flow.acquire(r.Context(), user, info)
		if err != nil {
			s.log.Debug("apiserver: priority level full", "level", level, "user", user.Name, "path", r.URL.Path, "err", err)
			writeError(rw, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
			return
		}
		defer release()
	}
	if err := s.authorize(r.Context(), user, info, r); err != nil {
		writeError(rw, err)
		return
	}
	s.route(rw, r, info, user)
}

func (s *Server) authenticate(r *http.Request) (*authn.User, error) {
	u, ok, err := s.authenticateRequest(r)
	if err != nil || !ok {
		s.log.Debug("apiserver: unauthenticated request", "path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
		return nil, apierrors.NewUnauthorized("")
	}
	return u, nil
}

// authenticateRequest asks the service-account authenticator, then
// Config.Authenticator.
func (s *Server) authenticateRequest(r *http.Request) (*authn.User, bool, error) {
	if u, ok, err := s.authenticateServiceAccount(r); ok || err != nil {
		return u, ok, err
	}
	if s.cfg.Authenticator == nil {
		return nil, false, nil
	}
	return s.cfg.Authenticator.AuthenticateRequest(r)
}

func (s *Server) authorize(ctx context.Context, u *authn.User, info *RequestInfo, r *http.Request) error {
	a := attributesFor(u, info, r)
	d, reason, err := s.authorizer.Authorize(ctx, a)
	if d == authz.DecisionAllow {
		return nil
	}
	if err != nil && reason == "" {
		reason = err.Error()
	}
	gr := meta.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	return apierrors.NewForbidden(gr, info.Name, authz.ForbiddenMessage(a, reason))
}

func attributesFor(u *authn.User, info *RequestInfo, r *http.Request) authz.Attributes {
	q := r.URL.Query()
	name := info.Name
	if name == "" && (info.Verb == "list" || info.Verb == "watch") {
		name = selectedName(q.Get("fieldSelector"))
	}
	return authz.Attributes{
		User: u, Verb: info.Verb, Namespace: info.Namespace, APIGroup: info.APIGroup, APIVersion: info.APIVersion,
		Resource: info.Resource, Subresource: info.Subresource, Name: name,
		ResourceRequest: info.IsResourceRequest, Path: info.Path,
		FieldSelector: q.Get("fieldSelector"), LabelSelector: q.Get("labelSelector"),
	}
}

// selectedName is the name a list or watch is authorized for, as
// kube-apiserver's request info reads it: the value of a metadata.name
// field selector term, when it is a valid path segment; "" otherwise. So
// a role with resourceNames may list and watch its one object (an
// informer on extension-apiserver-authentication).
func selectedName(sel string) string {
	if sel == "" {
		return ""
	}
	fs, err := fields.Parse(sel)
	if err != nil {
		return ""
	}
	name, ok := fs.RequiresExactMatch("metadata.name")
	if !ok || name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/%") {
		return ""
	}
	return name
}

// route sends an authorized request to its handler.
func (s *Server) route(w http.ResponseWriter, r *http.Request, info *RequestInfo, u *authn.User) {
	if rm := s.remoteFor(info); rm != nil {
		s.serveRemote(w, r, rm, u)
		return
	}
	if !info.IsResourceRequest {
		s.serveNonResource(w, r, info)
		return
	}
	gvr := meta.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}
	res, ok := s.lookup(gvr)
	if !ok {
		writeError(w, apierrors.NewPathNotFound())
		return
	}
	if err := checkScope(res, info); err != nil {
		writeError(w, err)
		return
	}
	r = r.WithContext(authn.WithUser(r.Context(), u))
	s.handleResource(w, r, &Request{Info: info, User: u, Query: r.URL.Query(), resource: res, userAgent: r.UserAgent()})
}

// checkScope answers, as kube-apiserver's router does, for the paths it
// serves no route on: a cluster-scoped kind under a namespace (404), a
// named object or subresource of a namespaced kind without a namespace
// (404), and anything but list and watch of a namespaced kind across all
// namespaces (405).
func checkScope(res *served, info *RequestInfo) error {
	switch {
	case res.Type.Namespaced && info.Namespace == "" && info.Name != "":
		return apierrors.NewPathNotFound()
	case res.Type.Namespaced && info.Namespace == "" && info.Verb != "list" && info.Verb != "watch":
		return apierrors.NewMethodNotAllowed()
	case !res.Type.Namespaced && info.Namespace != "" && info.Resource != "namespaces":
		return apierrors.NewPathNotFound()
	}
	return nil
}

// statusWriter remembers the status code for metrics and passes Flush on.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap exposes the underlying writer to http.ResponseController (Hijack
// for pods/exec's connection upgrade).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes through so watches stream.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

package record

import (
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/core"
)

// Defaults applied to zero Config fields; the rate limit and cache sizes
// are Kubernetes' (client-go's event correlator).
const (
	DefaultBuffer       = 1000
	DefaultWorkers      = 2
	DefaultWindow       = 10 * time.Minute
	DefaultCacheSize    = 4096
	DefaultQPS          = 1.0 / 300
	DefaultBurst        = 25
	DefaultFlushTimeout = 2 * time.Second
	DefaultRetries      = 3
	// MaxReasonLength is the longest reason accepted (the Events API's).
	MaxReasonLength = 128
	// MaxMessageLength is where longer messages are cut (with "..."), the
	// Events API's limit for a note.
	MaxMessageLength = 1024
)

// Config configures a Writer. Every zero value means the documented
// default. Config is copied by New.
type Config struct {
	// Source names the component that records through the Writer itself
	// (source.component, reportingComponent) and its host (source.host,
	// reportingInstance); other components sharing the Writer use
	// WithSource. Source.Component is required.
	Source core.EventSource
	// Buffer bounds the Events waiting to be written (split evenly across
	// the workers); when an Event's shard is full it is dropped and
	// counted. Default DefaultBuffer.
	Buffer int
	// Workers write Events at once, each for its own share of the involved
	// objects (an object's Events are written in order). Default
	// DefaultWorkers.
	Workers int
	// Window is how long after an Event the same Event (same source,
	// object, field path, type, reason and message) counts as a repeat of
	// it (count+1) instead of a new Event. Default DefaultWindow.
	Window time.Duration
	// CacheSize bounds the Events remembered for correlation and the rate
	// limiters remembered (least recently used are forgotten). Default
	// DefaultCacheSize.
	CacheSize int
	// QPS and Burst are the token bucket of one source for one involved
	// object: Burst Events at once, then QPS per second. Default
	// DefaultQPS and DefaultBurst; a negative QPS disables the limit.
	QPS   float64
	Burst int
	// FlushTimeout bounds the writing of what is buffered when Run's
	// context ends; what is left then is dropped. Default
	// DefaultFlushTimeout.
	FlushTimeout time.Duration
	// Retries is how many times one write is tried before it counts as
	// failed (server errors, throttling, timeouts; a rejected Event is not
	// retried). Default DefaultRetries.
	Retries int
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// Logger; default slog.Default(). Failed writes are logged at Debug.
	Logger *slog.Logger
}

func (o *Config) fill() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Buffer, DefaultBuffer)
	def(&o.Workers, DefaultWorkers)
	def(&o.CacheSize, DefaultCacheSize)
	def(&o.Burst, DefaultBurst)
	def(&o.Retries, DefaultRetries)
	o.Buffer = max(o.Buffer, o.Workers)
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.QPS == 0 {
		o.QPS = DefaultQPS
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = DefaultFlushTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

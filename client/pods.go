package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

var podsGVR = meta.GroupVersionResource{Version: "v1", Resource: "pods"}

// Bind assigns the pod named b.Name in b.Namespace to the node b.Target.Name
// by POSTing b to the pod's binding subresource. The server answers 409
// Conflict when the pod is already bound or being deleted. Bindings are
// never retried after they may have reached the server.
func (c *Client) Bind(ctx context.Context, b *core.Binding) error {
	if err := requireName(b.Name); err != nil {
		return err
	}
	if b.Namespace == "" {
		return fmt.Errorf("%w: binding %q has no namespace", ErrRequest, b.Name)
	}
	p, err := resourcePath(podsGVR, true, b.Namespace, b.Name, "binding")
	if err != nil {
		return err
	}
	cp := *b
	cp.TypeMeta = meta.TypeMeta{Kind: "Binding", APIVersion: "v1"}
	if t, ok := c.scheme.ByKind(cp.GroupVersionKind()); ok {
		if err := c.validateCreate(t, &cp, b.Namespace, "POST "+p); err != nil {
			return err
		}
	}
	body, err := json.Marshal(&cp)
	if err != nil {
		return fmt.Errorf("%w: encode Binding: %w", ErrRequest, err)
	}
	_, err = c.do(ctx, &request{method: "POST", path: p, body: body, contentType: "application/json"})
	return err
}

// LogOptions select what GetLogs returns; the zero value is the whole log
// of the pod's only container.
type LogOptions struct {
	// Container names the container; required when the pod has several.
	Container string
	// Follow keeps the stream open and delivers new lines as they come.
	Follow bool
	// Previous returns the log of the previous (terminated) instance.
	Previous bool
	// Timestamps prefixes each line with its RFC3339 time.
	Timestamps bool
	// TailLines, SinceSeconds and LimitBytes bound the log when positive.
	TailLines, SinceSeconds, LimitBytes int64
}

// query encodes o as pods/log reads it (core.PodLogOptions), leaving out
// the bounds that are not positive.
func (o LogOptions) query() url.Values {
	positive := func(n int64) *int64 {
		if n > 0 {
			return &n
		}
		return nil
	}
	return core.PodLogOptions{Container: o.Container, Follow: o.Follow, Previous: o.Previous, Timestamps: o.Timestamps,
		TailLines: positive(o.TailLines), SinceSeconds: positive(o.SinceSeconds), LimitBytes: positive(o.LimitBytes)}.Query()
}

// GetLogs returns the log of a container of the pod ns/name as a stream
// the caller must close. With opts.Follow it stays open until the
// container stops, the server ends it, or ctx ends.
func (c *Client) GetLogs(ctx context.Context, ns, name string, opts LogOptions) (io.ReadCloser, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	p, err := resourcePath(podsGVR, true, ns, name, "log")
	if err != nil {
		return nil, err
	}
	return c.stream(ctx, &request{method: "GET", path: p, query: opts.query(), replaySafe: true})
}

package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// MaxExtenderPriority is the highest score an extender may give; it is
// scaled to framework.MaxNodeScore and multiplied by the weight.
const MaxExtenderPriority int64 = 10

// maxExtenderResponse bounds what the scheduler reads from an extender.
const maxExtenderResponse = 16 << 20

// ExtenderConfig says where an HTTP extender is and what it does. The
// wire format is kube-scheduler's: POST URLPrefix/FilterVerb with
// ExtenderArgs, answered by ExtenderFilterResult; POST
// URLPrefix/PrioritizeVerb answered by a HostPriority list.
type ExtenderConfig struct {
	// URLPrefix is the extender's base URL ("http://127.0.0.1:8888/scheduler"). Required.
	URLPrefix string
	// FilterVerb and PrioritizeVerb are the paths appended for each call;
	// an empty verb means the extender does not take part in that step.
	FilterVerb, PrioritizeVerb string
	// Weight multiplies the extender's scores (default 1).
	Weight int64
	// NodeCacheCapable sends node names only; otherwise full Node objects.
	NodeCacheCapable bool
	// Timeout bounds each call (default 5 s).
	Timeout time.Duration
	// Ignorable makes a failing extender be skipped instead of failing
	// the pod's cycle.
	Ignorable bool
	// Client is the HTTP client (default a plain one).
	Client *http.Client
}

// ExtenderArgs is the body of filter and prioritize calls.
type ExtenderArgs struct {
	Pod       *core.Pod      `json:"pod"`
	Nodes     *core.NodeList `json:"nodes,omitempty"`
	NodeNames *[]string      `json:"nodenames,omitempty"`
}

// ExtenderFilterResult is a filter call's answer.
type ExtenderFilterResult struct {
	Nodes                      *core.NodeList    `json:"nodes,omitempty"`
	NodeNames                  *[]string         `json:"nodenames,omitempty"`
	FailedNodes                map[string]string `json:"failedNodes,omitempty"`
	FailedAndUnresolvableNodes map[string]string `json:"failedAndUnresolvableNodes,omitempty"`
	Error                      string            `json:"error,omitempty"`
}

// HostPriority is one node's score from a prioritize call (0..10).
type HostPriority struct {
	Host  string `json:"host"`
	Score int64  `json:"score"`
}

// Extender calls an out-of-process filter/prioritizer over HTTP, so
// plugins can be written in any language. It is immutable and safe for
// concurrent use.
type Extender struct {
	cfg ExtenderConfig
}

// NewExtender checks cfg and fills defaults. Errors wrap ErrInvalidConfig.
func NewExtender(cfg ExtenderConfig) (*Extender, error) {
	if cfg.URLPrefix == "" {
		return nil, fmt.Errorf("%w: extender without urlPrefix", ErrInvalidConfig)
	}
	if cfg.Weight == 0 {
		cfg.Weight = 1
	}
	if cfg.Weight < 0 {
		return nil, fmt.Errorf("%w: extender %s: negative weight", ErrInvalidConfig, cfg.URLPrefix)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	return &Extender{cfg: cfg}, nil
}

// Name returns the URL prefix, which names the extender in reasons.
func (e *Extender) Name() string { return e.cfg.URLPrefix }

// IsIgnorable reports whether failures of the extender are skipped.
func (e *Extender) IsIgnorable() bool { return e.cfg.Ignorable }

func (e *Extender) args(pod *core.Pod, nodes []*framework.NodeInfo) *ExtenderArgs {
	a := &ExtenderArgs{Pod: pod}
	if e.cfg.NodeCacheCapable {
		names := make([]string, len(nodes))
		for i, ni := range nodes {
			names[i] = ni.Name()
		}
		a.NodeNames = &names
		return a
	}
	l := &core.NodeList{Items: make([]core.Node, len(nodes))}
	for i, ni := range nodes {
		l.Items[i] = *ni.Node()
	}
	a.Nodes = l
	return a
}

// Filter asks the extender which of nodes may run pod. It returns the
// accepted nodes (a subset of nodes, in their order) and the reasons of
// the rejected ones. Errors wrap ErrExtender.
func (e *Extender) Filter(ctx context.Context, pod *core.Pod, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, map[string]*framework.Status, error) {
	if e.cfg.FilterVerb == "" {
		return nodes, nil, nil
	}
	var res ExtenderFilterResult
	if err := e.call(ctx, e.cfg.FilterVerb, e.args(pod, nodes), &res); err != nil {
		return nil, nil, err
	}
	if res.Error != "" {
		return nil, nil, fmt.Errorf("%w: %s: %s", ErrExtender, e.Name(), res.Error)
	}
	keep := map[string]bool{}
	switch {
	case res.NodeNames != nil:
		for _, n := range *res.NodeNames {
			keep[n] = true
		}
	case res.Nodes != nil:
		for i := range res.Nodes.Items {
			keep[res.Nodes.Items[i].Name] = true
		}
	}
	failed := map[string]*framework.Status{}
	for n, r := range res.FailedNodes {
		failed[n] = framework.NewStatus(framework.Unschedulable, r).WithPlugin(e.Name())
	}
	for n, r := range res.FailedAndUnresolvableNodes {
		failed[n] = framework.NewStatus(framework.UnschedulableAndUnresolvable, r).WithPlugin(e.Name())
	}
	var out []*framework.NodeInfo
	for _, ni := range nodes {
		if keep[ni.Name()] {
			out = append(out, ni)
		} else if failed[ni.Name()] == nil {
			failed[ni.Name()] = framework.NewStatus(framework.Unschedulable, "node(s) were rejected by extender "+e.Name()).WithPlugin(e.Name())
		}
	}
	return out, failed, nil
}

// Prioritize asks the extender to score nodes; the result maps node
// names to weighted scores on the framework's scale. Errors wrap
// ErrExtender; scores outside 0..MaxExtenderPriority are an error.
func (e *Extender) Prioritize(ctx context.Context, pod *core.Pod, nodes []*framework.NodeInfo) (map[string]int64, error) {
	if e.cfg.PrioritizeVerb == "" {
		return nil, nil
	}
	var res []HostPriority
	if err := e.call(ctx, e.cfg.PrioritizeVerb, e.args(pod, nodes), &res); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(res))
	for _, hp := range res {
		if hp.Score < 0 || hp.Score > MaxExtenderPriority {
			return nil, fmt.Errorf("%w: %s: score %d for %q not in 0..%d", ErrExtender, e.Name(), hp.Score, hp.Host, MaxExtenderPriority)
		}
		out[hp.Host] = hp.Score * (framework.MaxNodeScore / MaxExtenderPriority) * e.cfg.Weight
	}
	return out, nil
}

func (e *Extender) call(ctx context.Context, verb string, args *ExtenderArgs, out any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("%w: %s: encode: %w", ErrExtender, e.Name(), err)
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	url := strings.TrimSuffix(e.cfg.URLPrefix, "/") + "/" + strings.TrimPrefix(verb, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrExtender, e.Name(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrExtender, e.Name(), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxExtenderResponse+1))
	if err != nil {
		return fmt.Errorf("%w: %s: read: %w", ErrExtender, e.Name(), err)
	}
	if len(data) > maxExtenderResponse {
		return fmt.Errorf("%w: %s: response over %d bytes", ErrExtender, e.Name(), maxExtenderResponse)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s: %s %s: HTTP %d", ErrExtender, e.Name(), req.Method, verb, resp.StatusCode)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %s: decode %s answer: %w", ErrExtender, e.Name(), verb, err)
	}
	return nil
}

// extenderFilter runs the extenders' filters over the feasible nodes,
// adding their rejections to statuses (made when nil); an ignorable
// extender's failure is skipped.
func (a *algorithm) extenderFilter(ctx context.Context, pod *core.Pod, feasible []*framework.NodeInfo, statuses framework.NodeToStatus) ([]*framework.NodeInfo, framework.NodeToStatus, error) {
	for _, e := range a.extenders {
		if len(feasible) == 0 {
			break
		}
		out, failed, err := e.Filter(ctx, pod, feasible)
		if err != nil {
			if e.IsIgnorable() {
				continue
			}
			return nil, statuses, err
		}
		if len(failed) > 0 && statuses == nil {
			statuses = framework.NodeToStatus{}
		}
		for n, s := range failed {
			statuses[n] = s
		}
		feasible = out
	}
	return feasible, statuses, nil
}

// extenderPrioritize adds the extenders' weighted scores to totals.
func (a *algorithm) extenderPrioritize(ctx context.Context, pod *core.Pod, feasible []*framework.NodeInfo, totals []int64) error {
	for _, e := range a.extenders {
		scores, err := e.Prioritize(ctx, pod, feasible)
		if err != nil {
			if e.IsIgnorable() {
				continue
			}
			return err
		}
		for i, ni := range feasible {
			totals[i] += scores[ni.Name()]
		}
	}
	return nil
}

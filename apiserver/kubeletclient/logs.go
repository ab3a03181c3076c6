package kubeletclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

// maxErrorBody bounds how much of a kubelet's error answer is read.
const maxErrorBody = 4 << 10

// Logs streams the log of opts.Container (which the caller has resolved)
// of pod from its kubelet's containerLogs endpoint to w, until the kubelet
// ends the stream or ctx is done. Errors before the first byte are
// Statuses: the Node's, a 400 for a node without a kubelet endpoint or a
// kubelet that cannot be reached, and a 400 carrying the kubelet's own
// message when it refuses (no such pod or container on the node, no
// previous run). An error after bytes reached w is the copy's.
func (c *Client) Logs(ctx context.Context, pod *core.Pod, opts core.PodLogOptions, w io.Writer) error {
	q := opts.Query()
	q.Del("container") // the path names it
	u, err := c.Location(ctx, pod.Spec.NodeName, podPath("containerLogs", pod, opts.Container), q)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	resp, err := c.stream.Do(req)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("reach kubelet of node %q: %v", pod.Spec.NodeName, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg := strings.TrimSpace(string(b))
		if resp.StatusCode == http.StatusNotFound {
			return apierrors.NewBadRequest(msg)
		}
		return apierrors.NewBadRequest(fmt.Sprintf("kubelet of node %q: %s: %s", pod.Spec.NodeName, resp.Status, msg))
	}
	_, err = io.Copy(w, resp.Body)
	return err
}

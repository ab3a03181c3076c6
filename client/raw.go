package client

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// GetRaw sends GET path?query to the server (as `kubectl get --raw`
// does) and returns the body of a 2xx response; other answers are errors
// wrapping the server's *meta.Status. path must be absolute and must not
// contain ".." segments, which could address another path.
func (c *Client) GetRaw(ctx context.Context, path string, query url.Values) ([]byte, error) {
	if !strings.HasPrefix(path, "/") || strings.Contains("/"+path+"/", "/../") || strings.Contains(path, "?") {
		return nil, fmt.Errorf("%w: invalid raw path %q", ErrRequest, path)
	}
	return c.do(ctx, &request{method: "GET", path: path, query: query, replaySafe: true})
}

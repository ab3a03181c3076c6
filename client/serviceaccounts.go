package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/meta"
)

var serviceAccountsGVR = meta.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}

// CreateToken requests a token of the service account ns/name by POSTing
// tr to its token subresource (TokenRequest, as `kubectl create token`
// does) and returns the answer, whose status holds the token and its
// expiry. tr is not changed. Like every create it is not retried once it
// may have reached the server.
func (c *Client) CreateToken(ctx context.Context, ns, name string, tr *authentication.TokenRequest) (*authentication.TokenRequest, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	if ns == "" {
		return nil, fmt.Errorf("%w: token request for %q has no namespace", ErrRequest, name)
	}
	p, err := resourcePath(serviceAccountsGVR, true, ns, name, "token")
	if err != nil {
		return nil, err
	}
	cp := *tr
	cp.TypeMeta = meta.TypeMeta{Kind: "TokenRequest", APIVersion: authentication.GroupName + "/" + authentication.Version}
	body, err := json.Marshal(&cp)
	if err != nil {
		return nil, fmt.Errorf("%w: encode TokenRequest: %w", ErrRequest, err)
	}
	b, err := c.do(ctx, &request{method: "POST", path: p, body: body, contentType: "application/json"})
	if err != nil {
		return nil, err
	}
	out := &authentication.TokenRequest{}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("%w: decode TokenRequest: %w", ErrDecode, err)
	}
	return out, nil
}

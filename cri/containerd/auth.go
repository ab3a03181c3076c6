package containerd

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/orkit/orkit/cri"
)

// decodeAuth decodes a docker config "auth" field: base64 of
// "username:password". The error wraps cri.ErrInvalidArgument.
func decodeAuth(s string) (string, string, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return "", "", fmt.Errorf("auth field is not base64: %w", cri.ErrInvalidArgument)
	}
	user, pass, ok := strings.Cut(string(b), ":")
	if !ok || user == "" {
		return "", "", fmt.Errorf("auth field is not \"user:password\": %w", cri.ErrInvalidArgument)
	}
	return user, pass, nil
}

package client

import "net/http"

// Test hooks for the external test package (client_test), which cannot be
// the package itself because controlplane imports client.

// HTTPClientOf returns the HTTP client c sends requests through.
func HTTPClientOf(c *Client) *http.Client { return c.http }

// HostDir is the cache directory name of a server address.
var HostDir = hostDir

// Command version prints apiserver.Version as JSON: the diagnostics test
// builds it with go build, as a user builds a binary, to check that
// /version carries the commit and its time from the Go build info.
package main

import (
	"encoding/json"
	"os"

	"github.com/orkit/orkit/apiserver"
)

func main() {
	_ = json.NewEncoder(os.Stdout).Encode(apiserver.Version)
}

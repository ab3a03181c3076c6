// Command genapidocs writes apiserver/openapi_docs.go, the doc comments
// of the API's Go types that the OpenAPI documents carry as descriptions.
// Run it through go generate in ./apiserver after changing a type's
// comments; a test there fails while the file is stale.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/orkit/orkit/internal/apidocs"
)

func main() {
	api := flag.String("api", "../api", "the module's api directory")
	out := flag.String("out", "openapi_docs.go", "the file to write")
	flag.Parse()
	if err := run(*api, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genapidocs:", err)
		os.Exit(1)
	}
}

func run(api, out string) error {
	docs, err := apidocs.Extract(api, "github.com/orkit/orkit/api")
	if err != nil {
		return err
	}
	src, err := apidocs.Render("apiserver", "typeDocs", docs)
	if err != nil {
		return err
	}
	fmt.Printf("genapidocs: %d documented types from %s into %s\n", len(docs), api, out)
	return os.WriteFile(out, src, 0o644)
}

package authn_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/orkit/orkit/authn"
)

// A token file and a password file behind one Union, with anonymous
// requests allowed.
func ExampleUnion() {
	tokens, err := authn.ReadTokenFile("tokens.csv", strings.NewReader(
		"31ada4fd-adec-460c-809a-9e56ceb75269,alice,1001,\"dev,ops\"\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	passwords, err := authn.ReadBasicAuthFile("passwords.csv", strings.NewReader("s3cret,bob,1002\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	auth := authn.Union(true, tokens, passwords)

	r := httptest.NewRequest(http.MethodGet, "/api", nil)
	r.Header.Set("Authorization", "Bearer 31ada4fd-adec-460c-809a-9e56ceb75269")
	u, _, _ := auth.AuthenticateRequest(r)
	fmt.Println(u.Name, u.Groups)

	r = httptest.NewRequest(http.MethodGet, "/api", nil)
	r.SetBasicAuth("bob", "s3cret")
	u, _, _ = auth.AuthenticateRequest(r)
	fmt.Println(u.Name, u.Groups)

	u, _, _ = auth.AuthenticateRequest(httptest.NewRequest(http.MethodGet, "/api", nil))
	fmt.Println(u.Name, u.Groups)

	r.SetBasicAuth("bob", "wrong")
	_, _, err = auth.AuthenticateRequest(r)
	fmt.Println(err)
	// Output:
	// alice [dev ops system:authenticated]
	// bob [system:authenticated]
	// system:anonymous [system:unauthenticated]
	// unauthorized: invalid basic auth
}

// A malformed line is reported with the file and line number.
func ExampleTokenFile() {
	_, err := authn.ReadTokenFile("tokens.csv", strings.NewReader("t1,alice,1\nt2,bob\n"))
	fmt.Println(err)
	// Output:
	// tokens.csv:2: want at least 3 columns (token, user name, user uid), found 2
}

// OIDC is configured like kube-apiserver's --oidc-* flags; it contacts the
// provider only when the first token arrives.
func ExampleOIDC() {
	a, err := authn.OIDC(authn.Config{
		IssuerURL:     "https://accounts.example.com",
		ClientID:      "orkit",
		UsernameClaim: "email",
		GroupsClaim:   "groups",
		GroupsPrefix:  "oidc:",
	})
	fmt.Println(a != nil, err)

	_, err = authn.OIDC(authn.Config{IssuerURL: "http://insecure.example.com", ClientID: "orkit"})
	fmt.Println(err)
	// Output:
	// true <nil>
	// invalid authenticator configuration: oidc: issuer URL "http://insecure.example.com" must be an https URL without query or fragment
}

package apiserver

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testPrefix = "/api/v1/namespaces/ns/pods/web:80/proxy"

func testRewriter() *proxyRewriter {
	return &proxyRewriter{prefix: testPrefix, backendHost: "10.0.0.5:80", requestHost: "api.example:6443"}
}

func TestProxyRewriterRewriteURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/rewriteme", testPrefix + "/rewriteme"},
		{"/", testPrefix + "/"},
		{"/a/b/", testPrefix + "/a/b/"},
		{"/a?x=1#f", testPrefix + "/a?x=1#f"},
		{"http://10.0.0.5:80/a", testPrefix + "/a"},
		{"//10.0.0.5:80/a", testPrefix + "/a"},
		{"https://api.example:6443/a", "https://api.example:6443" + testPrefix + "/a"},
		{testPrefix + "/already", testPrefix + "/already"},
		{"http://10.0.0.5:80" + testPrefix + "/x", testPrefix + "/x"},
		{"http://other.example/a", "http://other.example/a"},
		{"http://10.0.0.5:8080/a", "http://10.0.0.5:8080/a"},
		{"relative/path", "relative/path"},
		{"../up", "../up"},
		{"#frag", "#frag"},
		{"?q=1", "?q=1"},
		{"mailto:a@b.example", "mailto:a@b.example"},
		{"http://10.0.0.5:80", "http://10.0.0.5:80"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := url.Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, testRewriter().rewriteURL(u))
		})
	}
}

func TestRewriteHTML(t *testing.T) {
	p := testPrefix
	tests := []struct{ name, in, want string }{
		{"a href", `<a href="/rewriteme">test</a>`, `<a href="` + p + `/rewriteme">test</a>`},
		{"upper case tag", `<A HREF="/x">t</A>`, `<a href="` + p + `/x">t</A>`},
		{"img src longdesc usemap", `<img src="/i.png" longdesc="/d" usemap="/m" alt="/alt">`,
			`<img src="` + p + `/i.png" longdesc="` + p + `/d" usemap="` + p + `/m" alt="/alt">`},
		{"self-closing link", `<link rel="stylesheet" href="/s.css"/>`, `<link rel="stylesheet" href="` + p + `/s.css"/>`},
		{"script src", `<script src="/app.js"></script>`, `<script src="` + p + `/app.js"></script>`},
		{"form action and button formaction", `<form action="/post"><button formaction="/b">x</button></form>`,
			`<form action="` + p + `/post"><button formaction="` + p + `/b">x</button></form>`},
		{"object data", `<object data="/o" classid="/c"></object>`, `<object data="` + p + `/o" classid="` + p + `/c"></object>`},
		{"video poster src", `<video poster="/p.jpg" src="/v.mp4"></video>`, `<video poster="` + p + `/p.jpg" src="` + p + `/v.mp4"></video>`},
		{"backend host", `<a href="http://10.0.0.5:80/x">t</a>`, `<a href="` + p + `/x">t</a>`},
		{"relative untouched", `<a href="x/y">t</a>`, `<a href="x/y">t</a>`},
		{"other host untouched", `<a href="https://other.example/x">t</a>`, `<a href="https://other.example/x">t</a>`},
		{"attribute not in the table", `<a title="/x" href="y">t</a>`, `<a title="/x" href="y">t</a>`},
		{"element not in the table", `<div href="/x" src="/y">t</div>`, `<div href="/x" src="/y">t</div>`},
		{"untouched tag kept byte for byte", `<P  CLASS='c'>/x</P>`, `<P  CLASS='c'>/x</P>`},
		{"script text untouched", `<script>var a = '<a href="/x">';</script>`, `<script>var a = '<a href="/x">';</script>`},
		{"comment and doctype kept", `<!DOCTYPE html><!-- <a href="/x"> --><p>`, `<!DOCTYPE html><!-- <a href="/x"> --><p>`},
		{"unparsable URL left alone", `<a href="/%zz">t</a>`, `<a href="/%zz">t</a>`},
		{"malformed markup read as the tokenizer does", `<a href="/x"<b <<>>&&`, `<a href="` + p + `/x" <b="" <<="">>&&`},
		{"stray brackets", `a < b > c </ d <`, `a < b > c </ d <`},
		{"unterminated tag", `<a href="/x`, `<a href="/x`},
		{"empty", ``, ``},
		{"not html at all", "\x00\xff binary \x01", "\x00\xff binary \x01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, rewriteHTML(strings.NewReader(tt.in), &out, testRewriter().rewriteURL))
			assert.Equal(t, tt.want, out.String())
		})
	}
}

func TestRewriteHTMLOversizedToken(t *testing.T) {
	// A token past maxRewriteToken ends the rewriting: what comes before
	// it is rewritten, it and the rest pass unchanged and whole.
	big := strings.Repeat("x", maxRewriteToken+10)
	in := `<a href="/before">b</a>` + big + `<a href="/after">a</a>`
	var out bytes.Buffer
	require.NoError(t, rewriteHTML(iotest.HalfReader(strings.NewReader(in)), &out, testRewriter().rewriteURL))
	assert.Equal(t, `<a href="`+testPrefix+`/before">b</a>`+big+`<a href="/after">a</a>`, out.String())
}

func TestRewriteHTMLReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`<a href="/x">`), iotest.ErrReader(io.ErrUnexpectedEOF))
	err := rewriteHTML(r, io.Discard, testRewriter().rewriteURL)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func gzipped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func deflated(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw, err := flate.NewWriter(&b, flate.DefaultCompression)
	require.NoError(t, err)
	_, err = zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func TestProxyRewriterModifyResponse(t *testing.T) {
	page := `<a href="/rewriteme">test</a>`
	rewritten := `<a href="` + testPrefix + `/rewriteme">test</a>`
	ungzip := func(b []byte) string {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		out, err := io.ReadAll(zr)
		require.NoError(t, err)
		return string(out)
	}
	inflate := func(b []byte) string {
		out, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
		require.NoError(t, err)
		return string(out)
	}
	plain := func(b []byte) string { return string(b) }
	tests := []struct {
		name      string
		method    string
		header    http.Header
		body      []byte
		decode    func([]byte) string
		want      string
		wantLoc   string
		wantErr   bool
		keepsSize bool
	}{
		{name: "html", header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: []byte(page), decode: plain, want: rewritten},
		{name: "gzip html", header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}},
			body: gzipped(t, page), decode: ungzip, want: rewritten},
		{name: "deflate html", header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"deflate"}},
			body: deflated(t, page), decode: inflate, want: rewritten},
		{name: "unknown encoding untouched", header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"br"}},
			body: []byte(page), decode: plain, want: page, keepsSize: true},
		{name: "plain text untouched", header: http.Header{"Content-Type": {"text/plain"}}, body: []byte(page), decode: plain, want: page, keepsSize: true},
		{name: "no content type untouched", header: http.Header{}, body: []byte(page), decode: plain, want: page, keepsSize: true},
		{name: "xhtml untouched", header: http.Header{"Content-Type": {"application/xhtml+xml"}}, body: []byte(page), decode: plain, want: page, keepsSize: true},
		{name: "HEAD untouched", method: http.MethodHead, header: http.Header{"Content-Type": {"text/html"}}, body: nil, decode: plain, want: "", keepsSize: true},
		{name: "redirect Location rewritten, body kept", header: http.Header{"Content-Type": {"text/html"}, "Location": {"/login"}},
			body: []byte(page), decode: plain, want: page, wantLoc: testPrefix + "/login", keepsSize: true},
		{name: "other-host Location kept", header: http.Header{"Location": {"https://idp.example/login"}},
			body: nil, decode: plain, want: "", wantLoc: "https://idp.example/login", keepsSize: true},
		{name: "unparsable Location", header: http.Header{"Location": {"http://[::1"}}, wantErr: true},
		{name: "corrupt gzip", header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}},
			body: []byte("not gzip"), decode: plain, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			tt.header.Set("Access-Control-Allow-Origin", "*")
			tt.header.Set("Content-Length", "1")
			resp := &http.Response{
				StatusCode: http.StatusOK, Header: tt.header, ContentLength: int64(len(tt.body)),
				Body: io.NopCloser(bytes.NewReader(tt.body)), Request: httptest.NewRequest(method, "/", nil),
			}
			err := testRewriter().modifyResponse(resp)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, tt.wantLoc, resp.Header.Get("Location"))
			if tt.keepsSize {
				assert.Equal(t, int64(len(tt.body)), resp.ContentLength)
			} else {
				assert.Equal(t, int64(-1), resp.ContentLength)
				assert.Empty(t, resp.Header.Get("Content-Length"))
			}
			body, err := io.ReadAll(resp.Body)
			if tt.name == "corrupt gzip" {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, tt.want, tt.decode(body))
		})
	}
}

func TestProxyRewriterStreamsLargeBody(t *testing.T) {
	// 2 MiB of links: rewritten as it streams, and closing the body early
	// stops the rewriting goroutine, which closes the backend's body.
	link := `<a href="/x">x</a>` + "\n"
	n := (2 << 20) / len(link)
	resp := &http.Response{
		Header:  http.Header{"Content-Type": {"text/html"}},
		Body:    io.NopCloser(strings.NewReader(strings.Repeat(link, n))),
		Request: httptest.NewRequest(http.MethodGet, "/", nil),
	}
	require.NoError(t, testRewriter().modifyResponse(resp))
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat(`<a href="`+testPrefix+`/x">x</a>`+"\n", n), string(got))

	closed := make(chan struct{})
	resp.Body = closeNotifier{Reader: strings.NewReader(strings.Repeat(link, n)), closed: closed}
	require.NoError(t, testRewriter().modifyResponse(resp))
	_, err = io.ReadFull(resp.Body, make([]byte, 100))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the rewriting did not stop when the body was closed")
	}
}

type closeNotifier struct {
	io.Reader
	closed chan struct{}
}

func (c closeNotifier) Close() error { close(c.closed); return nil }

// TestProxySubresourceRewrites goes through the proxy subresource handler
// to test backends (http and https with a self-signed certificate).
func TestProxySubresourceRewrites(t *testing.T) {
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			_, _ = io.WriteString(w, `<a href="/rewriteme">test</a>`+r.Header.Get("X-Forwarded-Uri"))
		case "/gz":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gzipped(t, `<img src="/i.png">`))
		case "/moved":
			http.Redirect(w, r, "/new", http.StatusFound)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, `<a href="/rewriteme">`+r.Method+" "+r.URL.RawQuery)
		default:
			http.NotFound(w, r)
		}
	})
	plainSrv := httptest.NewServer(backend)
	defer plainSrv.Close()
	tlsSrv := httptest.NewTLSServer(backend)
	defer tlsSrv.Close()

	tests := []struct {
		name, method, path, wantBody, wantLoc string
		wantStatus                            int
	}{
		{name: "html rewritten", path: "/pod:80/proxy/", wantStatus: 200,
			wantBody: `<a href="/api/v1/namespaces/ns/pods/pod:80/proxy/rewriteme">test</a>/api/v1/namespaces/ns/pods/pod:80/proxy/`},
		{name: "https self-signed", path: "/https:pod:443/proxy/", wantStatus: 200,
			wantBody: `<a href="/api/v1/namespaces/ns/pods/https:pod:443/proxy/rewriteme">test</a>/api/v1/namespaces/ns/pods/https:pod:443/proxy/`},
		{name: "gzip decoded by the client", path: "/pod/proxy/gz", wantStatus: 200,
			wantBody: `<img src="/api/v1/namespaces/ns/pods/pod/proxy/i.png">`},
		{name: "redirect Location", path: "/pod/proxy/moved", wantStatus: 302, wantLoc: "/api/v1/namespaces/ns/pods/pod/proxy/new"},
		{name: "not html untouched", method: http.MethodPost, path: "/pod/proxy/text?a=1", wantStatus: 200, wantBody: `<a href="/rewriteme">POST a=1`},
		{name: "GET without slash redirects", path: "/pod/proxy?method=GET", wantStatus: 301,
			wantLoc: "/api/v1/namespaces/ns/pods/pod/proxy/?method=GET"},
		{name: "HEAD without slash redirects", method: http.MethodHead, path: "/pod/proxy", wantStatus: 301,
			wantLoc: "/api/v1/namespaces/ns/pods/pod/proxy/"},
		{name: "DELETE without slash reaches /", method: http.MethodDelete, path: "/pod/proxy", wantStatus: 200,
			wantBody: `<a href="/api/v1/namespaces/ns/pods/pod/proxy/rewriteme">test</a>/api/v1/namespaces/ns/pods/pod/proxy/`},
	}
	s := &Server{}
	h := s.proxySubresource(func(_ context.Context, _ *Request, scheme, _ string) (*proxyTarget, error) {
		u, _ := url.Parse(plainSrv.URL)
		if scheme == "https" {
			u, _ = url.Parse(tlsSrv.URL)
		}
		return &proxyTarget{url: u, transport: plainTransport}, nil
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			r := httptest.NewRequest(method, "/api/v1/namespaces/ns/pods"+tt.path, nil)
			id := strings.Split(strings.TrimPrefix(tt.path, "/"), "/")[0]
			w := httptest.NewRecorder()
			h(r.Context(), w, r, &Request{Info: &RequestInfo{Name: id}})
			res := w.Result()
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			if res.Header.Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				body, err = io.ReadAll(zr)
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantStatus, res.StatusCode, string(body))
			assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, tt.wantLoc, res.Header.Get("Location"))
			if tt.wantBody != "" {
				assert.Equal(t, tt.wantBody, string(body))
			}
		})
	}
}

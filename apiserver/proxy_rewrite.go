package apiserver

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	apierrors "github.com/orkit/orkit/api/errors"
)

// The proxy subresources rewrite what the backend sends back so that its
// absolute links keep going through the API server, as kube-apiserver's
// proxy transport does: a page served by a pod at /rewriteme, reached
// through /api/v1/namespaces/ns/pods/web:80/proxy/, links to
// /api/v1/namespaces/ns/pods/web:80/proxy/rewriteme. Only Location headers
// and the URL-valued attributes of text/html bodies are rewritten, and
// only URLs with an absolute path and either no host, the backend's host
// or the host the client asked for; relative and other-host URLs pass
// unchanged.

// maxRewriteToken bounds the bytes the HTML tokenizer holds for one token;
// past it the rest of the body is passed on unchanged.
const maxRewriteToken = 1 << 20

// urlAttrs lists, per element, the attributes that hold a URL (the HTML
// 4.01 and HTML5 attribute indexes, as kube-apiserver's table).
var urlAttrs = map[atom.Atom][]string{
	atom.A:          {"href"},
	atom.Applet:     {"codebase"},
	atom.Area:       {"href"},
	atom.Audio:      {"src"},
	atom.Base:       {"href"},
	atom.Blockquote: {"cite"},
	atom.Body:       {"background"},
	atom.Button:     {"formaction"},
	atom.Command:    {"icon"},
	atom.Del:        {"cite"},
	atom.Embed:      {"src"},
	atom.Form:       {"action"},
	atom.Frame:      {"longdesc", "src"},
	atom.Head:       {"profile"},
	atom.Html:       {"manifest"},
	atom.Iframe:     {"longdesc", "src"},
	atom.Img:        {"longdesc", "src", "usemap"},
	atom.Input:      {"src", "usemap", "formaction"},
	atom.Ins:        {"cite"},
	atom.Link:       {"href"},
	atom.Object:     {"classid", "codebase", "data", "usemap"},
	atom.Q:          {"cite"},
	atom.Script:     {"src"},
	atom.Source:     {"src"},
	atom.Video:      {"poster", "src"},
}

// proxyRewriter rewrites one proxied response. prefix is the proxy path
// (/api/v1/namespaces/ns/pods/web:80/proxy), backendHost the host:port
// the request went to and requestHost the Host the client sent.
type proxyRewriter struct {
	prefix      string
	backendHost string
	requestHost string
}

// rewriteURL is u as seen through the proxy.
func (p *proxyRewriter) rewriteURL(u *url.URL) string {
	otherHost := u.Host != "" && u.Host != p.backendHost && u.Host != p.requestHost
	if otherHost || !strings.HasPrefix(u.Path, "/") {
		return u.String()
	}
	// The client reaches the proxy on the host it asked for: links to
	// that host keep it, links to the backend lose scheme and host.
	if u.Host != p.requestHost {
		u.Scheme, u.Host = "", ""
	}
	if strings.HasPrefix(u.Path, p.prefix) {
		return u.String()
	}
	trailing := strings.HasSuffix(u.Path, "/")
	u.Path = path.Join(p.prefix, u.Path)
	if trailing {
		u.Path += "/"
	}
	u.RawPath = ""
	return u.String()
}

// modifyResponse is the proxy's httputil.ReverseProxy.ModifyResponse: it
// drops the backend's CORS headers, rewrites a Location header and, for
// text/html, streams the body through rewriteHTML.
func (p *proxyRewriter) modifyResponse(resp *http.Response) error {
	for _, h := range []string{"Access-Control-Allow-Credentials", "Access-Control-Allow-Headers",
		"Access-Control-Allow-Methods", "Access-Control-Allow-Origin"} {
		resp.Header.Del(h)
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		u, err := url.Parse(loc)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("error trying to parse Location header: %w", err))
		}
		resp.Header.Set("Location", p.rewriteURL(u))
		return nil
	}
	ctype, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	if strings.TrimSpace(ctype) != "text/html" || resp.Request == nil || resp.Request.Method == http.MethodHead {
		return nil
	}
	encoding := resp.Header.Get("Content-Encoding")
	if encoding != "" && encoding != "gzip" && encoding != "deflate" {
		return nil // an encoding the proxy cannot read: links stay as they are
	}
	resp.Body = p.rewriteBody(resp.Body, encoding)
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	return nil
}

// rewriteBody streams body, decoded and encoded again with encoding,
// through rewriteHTML. Closing the returned body stops the rewriting and
// closes body.
func (p *proxyRewriter) rewriteBody(body io.ReadCloser, encoding string) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		pw.CloseWithError(p.rewriteEncoded(body, pw, encoding))
	}()
	return pr
}

// rewriteEncoded decodes r, rewrites it and writes it encoded to w.
func (p *proxyRewriter) rewriteEncoded(r io.Reader, w io.Writer, encoding string) error {
	switch encoding {
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("read gzip-encoded html: %w", err)
		}
		zw := gzip.NewWriter(w)
		if err := rewriteHTML(zr, zw, p.rewriteURL); err != nil {
			return err
		}
		return zw.Close()
	case "deflate":
		zw, err := flate.NewWriter(w, flate.BestCompression)
		if err != nil {
			return err
		}
		if err := rewriteHTML(flate.NewReader(r), zw, p.rewriteURL); err != nil {
			return err
		}
		return zw.Close()
	}
	return rewriteHTML(r, w, p.rewriteURL)
}

// rewriteHTML copies the HTML in r to w with the URL-valued attributes
// rewritten by rewrite. Tags with nothing rewritten, text, comments and
// an unterminated tag at the end are copied byte for byte; a token over maxRewriteToken ends the
// rewriting and the rest of r is copied unchanged.
func rewriteHTML(r io.Reader, w io.Writer, rewrite func(*url.URL) string) error {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(maxRewriteToken)
	for {
		tt := z.Next()
		var err error
		switch tt {
		case html.ErrorToken:
			switch {
			case z.Err() == io.EOF:
				_, err := w.Write(z.Raw()) // an unterminated tag at the end
				return err
			case errors.Is(z.Err(), html.ErrBufferExceeded):
				if _, err := w.Write(z.Raw()); err != nil {
					return err
				}
				if _, err := w.Write(z.Buffered()); err != nil {
					return err
				}
				_, err := io.Copy(w, r)
				return err
			}
			return z.Err()
		case html.StartTagToken, html.SelfClosingTagToken:
			err = writeTag(w, z, rewrite)
		default:
			_, err = w.Write(z.Raw())
		}
		if err != nil {
			return err
		}
	}
}

// writeTag writes the tag z is at, serialized again if one of its URLs
// changed, else as it came.
func writeTag(w io.Writer, z *html.Tokenizer, rewrite func(*url.URL) string) error {
	raw := append([]byte(nil), z.Raw()...) // Token lower-cases names in place
	tok := z.Token()
	attrs, ok := urlAttrs[tok.DataAtom]
	changed := false
	for i, a := range tok.Attr {
		if !ok || a.Namespace != "" || !slices.Contains(attrs, a.Key) {
			continue
		}
		u, err := url.Parse(a.Val)
		if err != nil {
			continue // not a URL: left as it is
		}
		if v := rewrite(u); v != a.Val {
			tok.Attr[i].Val, changed = v, true
		}
	}
	if !changed {
		_, err := w.Write(raw)
		return err
	}
	_, err := io.WriteString(w, tok.String())
	return err
}

package spdy

import "encoding/binary"

// dictionaryWords and dictionaryTail make up the zlib dictionary that
// SPDY/3 header blocks are compressed with (SPDY/3 draft, section 2.6.10.1):
// each word with a 4-byte big-endian length before it, then the tail as it
// stands. The bytes must match the draft exactly, or the peer's inflate
// rejects the stream (zlib checks the dictionary's Adler-32).
var dictionaryWords = []string{
	"options", "head", "post", "put", "delete", "trace", "accept", "accept-charset",
	"accept-encoding", "accept-language", "accept-ranges", "age", "allow", "authorization",
	"cache-control", "connection", "content-base", "content-encoding", "content-language",
	"content-length", "content-location", "content-md5", "content-range", "content-type",
	"date", "etag", "expect", "expires", "from", "host", "if-match", "if-modified-since",
	"if-none-match", "if-range", "if-unmodified-since", "last-modified", "location",
	"max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
	"retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent",
	"vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK",
	"version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin",
}

const dictionaryTail = "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505" +
	"203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request" +
	"401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented" +
	"503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 " +
	"Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif," +
	"application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=" +
	"gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."

// headerDictionary is the SPDY/3 zlib dictionary, built once.
var headerDictionary = buildDictionary()

func buildDictionary() []byte {
	var b []byte
	for _, w := range dictionaryWords {
		b = binary.BigEndian.AppendUint32(b, uint32(len(w)))
		b = append(b, w...)
	}
	return append(b, dictionaryTail...)
}

package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"sigs.k8s.io/yaml"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/protobuf"
)

// MaxRequestBodyBytes is the largest request body accepted (3 MiB, as
// kube-apiserver); larger bodies get 413.
const MaxRequestBodyBytes = 3 << 20

// maxBodyPrealloc is the most readAll reserves before reading a body.
const maxBodyPrealloc = 64 << 10

// readBody reads at most MaxRequestBodyBytes of r's body and converts YAML
// to JSON. It checks the content type against the ones allowed.
func readBody(r *http.Request, allowed ...string) ([]byte, string, error) {
	ct := r.Header.Get("Content-Type")
	mt := "application/json"
	if ct != "" {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			return nil, "", apierrors.NewUnsupportedMediaType(ct)
		}
	}
	ok := false
	for _, a := range allowed {
		// Where JSON is accepted, so is Kubernetes' protobuf: kubectl's
		// typed clients send it.
		ok = ok || a == mt || (a == "application/json" && mt == protobufType)
	}
	if !ok {
		return nil, "", apierrors.NewUnsupportedMediaType(ct)
	}
	b, err := readAll(io.LimitReader(r.Body, MaxRequestBodyBytes+1), r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", tooLarge()
		}
		return nil, "", apierrors.NewBadRequest(fmt.Sprintf("reading request body: %v", err))
	}
	if len(b) > MaxRequestBodyBytes {
		return nil, "", tooLarge()
	}
	switch mt {
	case "application/yaml":
		if b, err = yaml.YAMLToJSON(b); err != nil {
			return nil, "", apierrors.NewBadRequest(fmt.Sprintf("invalid YAML: %v", err))
		}
		mt = "application/json"
	case protobufType:
		if b, err = protobufToJSON(b); err != nil {
			return nil, "", err
		}
		mt = "application/json"
	}
	return b, mt, nil
}

// readAll reads rd to the end into a buffer sized from the request's
// Content-Length instead of growing from 512 bytes. The size is only a
// hint (a client may declare more than it sends), so at most
// maxBodyPrealloc is reserved up front.
func readAll(rd io.Reader, contentLength int64) ([]byte, error) {
	if contentLength <= 0 {
		return io.ReadAll(rd)
	}
	buf := bytes.NewBuffer(make([]byte, 0, int(min(contentLength, maxBodyPrealloc))+bytes.MinRead))
	_, err := buf.ReadFrom(rd)
	return buf.Bytes(), err
}

// protobufType is the media type of Kubernetes' protobuf encoding.
const protobufType = "application/vnd.kubernetes.protobuf"

// protobufToJSON converts a protobuf body to JSON (kind and apiVersion
// included), so the rest of the server only sees JSON.
func protobufToJSON(b []byte) ([]byte, error) {
	out, _, err := protobuf.ToJSON(b)
	switch {
	case errors.Is(err, protobuf.ErrUnknownKind):
		return nil, apierrors.NewUnsupportedMediaType(fmt.Sprintf("%s (%v)", protobufType, err))
	case err != nil:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the protobuf body could not be decoded: %v", err))
	}
	return out, nil
}

func tooLarge() error {
	return apierrors.NewRequestEntityTooLarge(fmt.Sprintf("Request entity too large: limit is %d", MaxRequestBodyBytes))
}

// decodeStrict decodes JSON into obj. With strict set, unknown fields are
// an error, as fieldValidation=Strict asks. A lenient decode of a body
// that is one valid JSON value goes through json.Unmarshal, about twice
// as fast as a json.Decoder; everything else, failures included, takes
// the Decoder path, which words the errors.
func decodeStrict(b []byte, obj any, strict bool) error {
	if !strict && json.Unmarshal(b, obj) == nil {
		return nil
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return apierrors.NewBadRequest("the request body is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(obj); err != nil {
		if strict && strings.HasPrefix(err.Error(), "json: unknown field") {
			return apierrors.NewBadRequest("strict decoding error: " + strings.TrimPrefix(err.Error(), "json: "))
		}
		return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized or malformed: %v", err))
	}
	if dec.More() {
		return apierrors.NewBadRequest("the request body holds more than one JSON value")
	}
	return nil
}

// writeJSON writes v with the given code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(apierrors.NewInternalError(err))
	}
	writeRaw(w, code, b)
}

// writeRaw writes the JSON document b with the given code, in protobuf
// when the client prefers it and b converts (see encoding_protobuf.go).
func writeRaw(w http.ResponseWriter, code int, b []byte) {
	if writeProtobuf(w, code, b) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte("\n"))
}

// writeError writes err as a Status; errors that are not a Status become
// 500s. This is where every handler error leaves the server.
func writeError(w http.ResponseWriter, err error) {
	st := apierrors.FromError(err)
	if st == nil {
		st = apierrors.NewInternalError(err)
	}
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	if st.Kind == "" {
		st.TypeMeta = meta.TypeMeta{Kind: "Status", APIVersion: "v1"}
		st.Status = meta.StatusFailure
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(st.Details.RetryAfterSeconds))
	}
	writeJSON(w, int(st.Code), st)
}

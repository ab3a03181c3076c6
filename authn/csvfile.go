package authn

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxFileSize is the largest token or password file the loaders accept.
const MaxFileSize = 8 << 20

// csvRecord is one non-blank line of a credentials file.
type csvRecord struct {
	line   int
	fields []string
}

// readFileLimited reads path, refusing files over MaxFileSize.
func readFileLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidFile, err)
	}
	defer f.Close()
	return readLimited(path, f)
}

// readLimited reads r, refusing more than MaxFileSize bytes.
func readLimited(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, &LineError{Path: name, Msg: err.Error()}
	}
	if len(data) > MaxFileSize {
		return nil, &LineError{Path: name, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileSize)}
	}
	return data, nil
}

// parseCSV splits data into records of at least minFields fields, the
// way kube-apiserver reads its token and password files: RFC 4180 CSV,
// leading spaces of a field trimmed, blank lines skipped, extra columns
// kept (and ignored by the callers). what names the required columns for
// the error message.
func parseCSV(name string, data []byte, minFields int, what string) ([]csvRecord, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.ReuseRecord = false
	var out []csvRecord
	for {
		fields, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &LineError{Path: name, Line: pe.StartLine, Msg: pe.Err.Error()}
			}
			return nil, &LineError{Path: name, Msg: err.Error()}
		}
		line, _ := r.FieldPos(0)
		if len(fields) < minFields {
			return nil, &LineError{Path: name, Line: line, Msg: fmt.Sprintf(
				"want at least %d columns (%s), found %d", minFields, what, len(fields))}
		}
		out = append(out, csvRecord{line: line, fields: fields})
	}
}

// parseGroups splits the quoted groups column ("a,b") into names, trimming
// spaces and dropping empty entries.
func parseGroups(field string) []string {
	var groups []string
	for g := range strings.SplitSeq(field, ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	return groups
}

// recordUser builds the user of a record whose columns 1 and 2 are the
// name and uid and column 3, if present, the groups. The name must not
// be empty.
func recordUser(name string, rec csvRecord) (*User, error) {
	u := &User{Name: rec.fields[1], UID: rec.fields[2]}
	if strings.TrimSpace(u.Name) == "" {
		return nil, &LineError{Path: name, Line: rec.line, Msg: "user name is empty"}
	}
	if len(rec.fields) > 3 {
		u.Groups = parseGroups(rec.fields[3])
	}
	return u, nil
}

package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/orkit/orkit/api/meta"
)

// TableColumn describes one column of kubectl's table output.
type TableColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	// Priority 0 columns are always shown; 1 only with -o wide.
	Priority int32 `json:"priority"`
}

// TableRow is one row: the cells, and the object (or its metadata).
type TableRow struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object,omitempty"`
}

// Table is the meta.k8s.io/v1 Table kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.
type Table struct {
	meta.TypeMeta     `json:",inline"`
	meta.ListMeta     `json:"metadata"`
	ColumnDefinitions []TableColumn `json:"columnDefinitions"`
	Rows              []TableRow    `json:"rows"`
}

// TableConvertor turns objects of one kind into table rows. Cells returns
// one value per column (string, int64, ...), Name and Age excluded: Name
// comes first and Age where kube-apiserver's printers put it (before the
// first wide column, or before AgeBefore), unless NoDefaults is set.
type TableConvertor struct {
	Columns []TableColumn
	Cells   func(obj meta.Object) []any
	// AgeBefore names the column Age precedes; "" means before the first
	// column of priority 1 (kubectl -o wide), or last when there is none.
	AgeBefore  string
	NoDefaults bool
}

// ageIndex is the index in Columns (and in Cells' values) where Age goes.
func (t *TableConvertor) ageIndex() int {
	for i, c := range t.Columns {
		if (t.AgeBefore == "" && c.Priority > 0) || (t.AgeBefore != "" && c.Name == t.AgeBefore) {
			return i
		}
	}
	return len(t.Columns)
}

var (
	nameColumn = TableColumn{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace."}
	ageColumn  = TableColumn{Name: "Age", Type: "string", Description: "CreationTimestamp is a timestamp representing the server time when this object was created."}
)

// defaultTable shows Name and Age.
var defaultTable = &TableConvertor{}

func (s *served) table() *TableConvertor {
	if s.Table != nil {
		return s.Table
	}
	return defaultTable
}

// hasTable reports whether res is shown as a Table: every resource but
// those served only for create without a Table of their own (bindings and
// the access and token reviews), as kube-apiserver's storages that only
// create have no table convertor.
func (s *served) hasTable() bool {
	return s.Table != nil || !slices.Equal(s.Verbs, []string{"create"})
}

// asTable converts objs to the Table the client asked for (as.Version).
func (s *served) asTable(as responseAs, objs []meta.Object, rv, cont, includeObject string) *Table {
	return s.table().convert(objs, rv, cont, includeObject, as.apiVersion())
}

// partialObjectMetadataList is the meta.k8s.io PartialObjectMetadataList
// a client asks a list as.
type partialObjectMetadataList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata"`
	Items         []any `json:"items"`
}

// partialList converts objs to the PartialObjectMetadataList the client
// asked for (as.Version).
func partialList(as responseAs, objs []meta.Object, lm meta.ListMeta) *partialObjectMetadataList {
	l := &partialObjectMetadataList{
		TypeMeta: meta.TypeMeta{Kind: asPartialList, APIVersion: as.apiVersion()},
		ListMeta: lm,
		Items:    make([]any, len(objs)),
	}
	for i, o := range objs {
		l.Items[i] = partialMetadata(o, as.apiVersion())
	}
	return l
}

// Convert builds the Table of objs. includeObject is "None", "Object" or
// "Metadata" (the default: a PartialObjectMetadata per row).
func (t *TableConvertor) Convert(objs []meta.Object, rv, cont, includeObject string) *Table {
	return t.convert(objs, rv, cont, includeObject, "meta.k8s.io/v1")
}

// convert is Convert into a Table of apiVersion (meta.k8s.io/v1 or
// v1beta1), its rows' PartialObjectMetadata of the same.
func (t *TableConvertor) convert(objs []meta.Object, rv, cont, includeObject, apiVersion string) *Table {
	tbl := &Table{
		TypeMeta: meta.TypeMeta{Kind: "Table", APIVersion: apiVersion},
		ListMeta: meta.ListMeta{ResourceVersion: rv, Continue: cont},
		Rows:     make([]TableRow, 0, len(objs)),
	}
	age := t.ageIndex()
	if t.NoDefaults {
		tbl.ColumnDefinitions = t.Columns
	} else {
		tbl.ColumnDefinitions = slices.Concat([]TableColumn{nameColumn}, t.Columns[:age], []TableColumn{ageColumn}, t.Columns[age:])
	}
	now := time.Now()
	for _, obj := range objs {
		m := obj.GetObjectMeta()
		var own []any
		if t.Cells != nil {
			own = t.Cells(obj)
		}
		cells := own
		if !t.NoDefaults {
			a := min(age, len(own))
			cells = slices.Concat([]any{m.Name}, own[:a], []any{HumanAge(m.CreationTimestamp, now)}, own[a:])
		}
		row := TableRow{Cells: cells}
		switch includeObject {
		case "None":
		case "Object":
			row.Object = obj
		default:
			row.Object = partialMetadata(obj, tbl.APIVersion)
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	return tbl
}

// partialMetadata is obj's metadata as a PartialObjectMetadata of
// apiVersion (meta.k8s.io/v1 or v1beta1).
func partialMetadata(obj meta.Object, apiVersion string) any {
	return struct {
		meta.TypeMeta `json:",inline"`
		Metadata      *meta.ObjectMeta `json:"metadata"`
	}{meta.TypeMeta{Kind: asPartial, APIVersion: apiVersion}, obj.GetObjectMeta()}
}

// HumanAge renders the time since t as kubectl does: "45s", "5m10s",
// "3h", "2d5h", "<unknown>" for a zero time.
func HumanAge(t meta.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(t.Time))
}

// HumanDuration renders d with at most two units, as Kubernetes'
// duration.HumanDuration.
func HumanDuration(d time.Duration) string {
	if d < -time.Second {
		return "<invalid>"
	}
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60*2:
		return fmt.Sprintf("%ds", s)
	case s < 60*10:
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	case s < 3600*3:
		return fmt.Sprintf("%dm", s/60)
	case s < 3600*8:
		if m := (s % 3600) / 60; m != 0 {
			return fmt.Sprintf("%dh%dm", s/3600, m)
		}
		return fmt.Sprintf("%dh", s/3600)
	case s < 3600*48:
		return fmt.Sprintf("%dh", s/3600)
	case s < 3600*24*8:
		if h := (s % 86400) / 3600; h != 0 {
			return fmt.Sprintf("%dd%dh", s/86400, h)
		}
		return fmt.Sprintf("%dd", s/86400)
	case s < 3600*24*365*2:
		return fmt.Sprintf("%dd", s/86400)
	case s < 3600*24*365*8:
		if d := (s % (86400 * 365)) / 86400; d != 0 {
			return fmt.Sprintf("%dy%dd", s/(86400*365), d)
		}
		return fmt.Sprintf("%dy", s/(86400*365))
	}
	return fmt.Sprintf("%dy", s/(86400*365))
}

func includeObject(r *http.Request) string {
	return r.URL.Query().Get("includeObject")
}

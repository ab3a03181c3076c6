package schema

import (
	"errors"
	"strconv"
	"strings"
)

var errBadFieldPath = errors.New("does not refer to a valid field")

// parseFieldPath parses the fieldPath of a CEL rule (".spec.x",
// "['a.b'].c", ".list[2]") against the schema node the rule is on, and
// returns it as walk segments. Every named step must be a property (or an
// entry of a map); an index must step into an array.
func parseFieldPath(fp string, n *node) (walkPath, error) {
	var out walkPath
	s := fp
	for s != "" {
		var name string
		switch {
		case s[0] == '.':
			end := strings.IndexAny(s[1:], ".[")
			if end < 0 {
				end = len(s) - 1
			}
			name, s = s[1:1+end], s[1+end:]
		case strings.HasPrefix(s, "['"):
			end := strings.Index(s, "']")
			if end < 0 {
				return nil, errBadFieldPath
			}
			name, s = strings.ReplaceAll(s[2:end], `\'`, `'`), s[end+2:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, errBadFieldPath
			}
			i, err := strconv.Atoi(s[1:end])
			if err != nil || n == nil || n.items == nil {
				return nil, errBadFieldPath
			}
			out, n, s = out.index(i), n.items, s[end+1:]
			continue
		default:
			return nil, errBadFieldPath
		}
		if name == "" || n == nil {
			return nil, errBadFieldPath
		}
		if c, ok := n.properties[name]; ok {
			out, n = out.prop(name), c
		} else if n.additional != nil {
			out, n = out.key(name), n.additional
		} else {
			return nil, errBadFieldPath
		}
	}
	return out, nil
}

// FieldType returns the type of the field a simple JSON path (".spec.x",
// "['a.b']") names in props, as a selectable field or a fieldPath
// resolves it; an error when the path names no specified field.
func FieldType(props *JSONSchemaProps, jsonPath string) (string, error) {
	p := props
	s := jsonPath
	for s != "" {
		var name string
		switch {
		case s[0] == '.':
			end := strings.IndexAny(s[1:], ".[")
			if end < 0 {
				end = len(s) - 1
			}
			name, s = s[1:1+end], s[1+end:]
		case strings.HasPrefix(s, "['"):
			end := strings.Index(s, "']")
			if end < 0 {
				return "", errBadFieldPath
			}
			name, s = s[2:end], s[end+2:]
		default:
			return "", errBadFieldPath
		}
		c, ok := p.Properties[name]
		if name == "" || !ok {
			return "", errBadFieldPath
		}
		p = &c
	}
	if p == props {
		return "", errBadFieldPath
	}
	return p.Type, nil
}

package jsonpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

type parser struct {
	src string
	pos int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) more() bool { return p.pos < len(p.src) }

func (p *parser) peek() byte { return p.src[p.pos] }

// steps parses the whole remaining input.
func (p *parser) steps() ([]step, error) {
	var out []step
	for p.more() {
		s, err := p.step()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *parser) step() (step, error) {
	switch {
	case strings.HasPrefix(p.src[p.pos:], ".."):
		p.pos += 2
		name := p.name()
		if name == "" {
			return step{}, p.errorf("a name must follow ..")
		}
		return step{kind: stepRecursive, names: []string{name}}, nil
	case p.peek() == '.':
		p.pos++
		if p.more() && p.peek() == '*' {
			p.pos++
			return step{kind: stepWildcard}, nil
		}
		if !p.more() {
			return step{kind: stepSelf}, nil // "." is the current value
		}
		if p.peek() == '[' {
			return p.bracket()
		}
		name := p.name()
		if name == "" {
			return step{}, p.errorf("expected a field name")
		}
		return step{kind: stepField, names: []string{name}}, nil
	case p.peek() == '[':
		return p.bracket()
	}
	return step{}, p.errorf("unexpected %q", p.peek())
}

// name reads a field name up to the next '.' or '['.
func (p *parser) name() string {
	start := p.pos
	for p.more() && p.peek() != '.' && p.peek() != '[' {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *parser) bracket() (step, error) {
	end := p.matching()
	if end < 0 {
		return step{}, p.errorf("unclosed [")
	}
	body := strings.TrimSpace(p.src[p.pos+1 : end])
	p.pos = end + 1
	switch {
	case body == "*":
		return step{kind: stepWildcard}, nil
	case strings.HasPrefix(body, "?(") && strings.HasSuffix(body, ")"):
		f, err := parseFilter(body[2 : len(body)-1])
		if err != nil {
			return step{}, err
		}
		return step{kind: stepFilter, filter: f}, nil
	case strings.HasPrefix(body, "'") || strings.HasPrefix(body, `"`):
		names, err := quotedList(body)
		return step{kind: stepField, names: names}, err
	case strings.Contains(body, ":"):
		return parseSlice(body)
	}
	var idx []int
	for _, part := range strings.Split(body, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return step{}, fmt.Errorf("invalid index %q", part)
		}
		idx = append(idx, i)
	}
	return step{kind: stepIndex, indices: idx}, nil
}

// matching finds the ']' closing the '[' at p.pos, skipping quoted text
// and nested brackets.
func (p *parser) matching() int {
	depth := 0
	var quote byte
	for i := p.pos; i < len(p.src); i++ {
		c := p.src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func quotedList(body string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		if len(part) < 2 || part[0] != part[len(part)-1] || (part[0] != '\'' && part[0] != '"') {
			return nil, fmt.Errorf("invalid quoted name %q", part)
		}
		out = append(out, part[1:len(part)-1])
	}
	return out, nil
}

func parseSlice(body string) (step, error) {
	parts := strings.Split(body, ":")
	if len(parts) > 3 {
		return step{}, fmt.Errorf("invalid slice %q", body)
	}
	s := step{kind: stepSlice}
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil {
			return step{}, fmt.Errorf("invalid slice %q", body)
		}
		s.slice[i] = &n
	}
	return s, nil
}

var errFilter = errors.New("a filter compares @ with a literal, like ?(@.type==\"Ready\")")

// parseFilter parses "@.a.b", "@.a == 'x'" and the like.
func parseFilter(src string) (*filter, error) {
	src = strings.TrimSpace(src)
	if !strings.HasPrefix(src, "@") {
		return nil, errFilter
	}
	ops := []string{"==", "!=", "<=", ">=", "<", ">"}
	left, op, right := src, "", ""
	for _, o := range ops {
		if i := strings.Index(src, o); i > 0 {
			left, op, right = strings.TrimSpace(src[:i]), o, strings.TrimSpace(src[i+len(o):])
			break
		}
	}
	rel, err := Parse(strings.TrimPrefix(left, "@"))
	if err != nil {
		return nil, err
	}
	f := &filter{path: rel, op: op}
	if op == "" {
		return f, nil
	}
	if f.literal, err = literal(right); err != nil {
		return nil, err
	}
	return f, nil
}

func literal(s string) (any, error) {
	switch {
	case len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0]:
		return s[1 : len(s)-1], nil
	case s == "true" || s == "false":
		return s == "true", nil
	case s == "null":
		return nil, nil
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	return nil, errFilter
}

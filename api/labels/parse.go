package labels

import (
	"fmt"
	"strings"
)

// Parse reads a selector in the syntax of ?labelSelector= and kubectl -l:
//
//	<selector>    ::= "" | <requirement> { "," <requirement> }
//	<requirement> ::= [ "!" ] KEY
//	                | KEY ( "=" | "==" | "!=" | ">" | "<" ) VALUE
//	                | KEY ( "in" | "notin" ) "(" [ VALUE { "," VALUE } ] ")"
//
// Spaces, tabs and newlines may surround every token. KEY is a qualified
// name and VALUE a label value (possibly empty: "a=" requires a="" and
// "a in (x,)" allows "x" and ""); "in" and "notin" are keywords only in
// operator position. Parse accepts what Kubernetes accepts, except "k=="
// with no value, which it rejects as a likely typo ("k=" is the way to
// write it). The empty string gives Everything.
//
// Errors wrap ErrInvalidSelector and say what was found where.
func Parse(s string) (Selector, error) {
	p := &parser{toks: lex(s)}
	reqs, err := p.parse()
	if err != nil {
		return nil, parseError(s, err)
	}
	return NewSelector(reqs...), nil
}

func parseError(s string, err error) error {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return fmt.Errorf("%w %q: %v", ErrInvalidSelector, s, err)
}

// tokKind is the kind of a lexical token.
type tokKind int

const (
	tokEOS tokKind = iota
	tokIdent
	tokNot      // !
	tokEq       // =
	tokDoubleEq // ==
	tokNotEq    // !=
	tokGt       // >
	tokLt       // <
	tokOpen     // (
	tokClose    // )
	tokComma    // ,
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// describe renders a token for an error message.
func (t token) describe() string {
	if t.kind == tokEOS {
		return "end of string"
	}
	return fmt.Sprintf("'%s' at offset %d", t.text, t.pos)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSymbol(c byte) bool { return strings.IndexByte("=!(),<>", c) >= 0 }

// lex splits s into tokens: runs of non-space non-symbol bytes are
// identifiers; "==" and "!=" are read before "=" and "!".
func lex(s string) []token {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case isSymbol(c):
			t := symbolAt(s, i)
			toks = append(toks, t)
			i += len(t.text)
		default:
			start := i
			for i < len(s) && !isSpace(s[i]) && !isSymbol(s[i]) {
				i++
			}
			toks = append(toks, token{kind: tokIdent, text: s[start:i], pos: start})
		}
	}
	return append(toks, token{kind: tokEOS, pos: len(s)})
}

func symbolAt(s string, i int) token {
	if i+1 < len(s) && s[i+1] == '=' {
		switch s[i] {
		case '=':
			return token{kind: tokDoubleEq, text: "==", pos: i}
		case '!':
			return token{kind: tokNotEq, text: "!=", pos: i}
		}
	}
	var kind tokKind
	switch s[i] {
	case '!':
		kind = tokNot
	case '=':
		kind = tokEq
	case '>':
		kind = tokGt
	case '<':
		kind = tokLt
	case '(':
		kind = tokOpen
	case ')':
		kind = tokClose
	default:
		kind = tokComma
	}
	return token{kind: kind, text: s[i : i+1], pos: i}
}

// parser is a recursive-descent parser over the token list.
type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOS {
		p.pos++
	}
	return t
}

func (p *parser) parse() ([]Requirement, error) {
	var reqs []Requirement
	if p.peek().kind == tokEOS {
		return nil, nil
	}
	for {
		r, err := p.requirement()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		switch t := p.next(); t.kind {
		case tokEOS:
			return reqs, nil
		case tokComma:
			if k := p.peek().kind; k != tokIdent && k != tokNot {
				return nil, fmt.Errorf("found %s, expected: identifier after ','", p.peek().describe())
			}
		default:
			return nil, fmt.Errorf("found %s, expected: ',' or end of string", t.describe())
		}
	}
}

// requirement parses one requirement.
func (p *parser) requirement() (Requirement, error) {
	negated := p.peek().kind == tokNot
	if negated {
		p.next()
	}
	key := p.next()
	if key.kind != tokIdent {
		return Requirement{}, fmt.Errorf("found %s, expected: identifier", key.describe())
	}
	if k := p.peek().kind; k == tokEOS || k == tokComma {
		if negated {
			return NewRequirement(key.text, DoesNotExist, nil)
		}
		return NewRequirement(key.text, Exists, nil)
	}
	if negated {
		return Requirement{}, fmt.Errorf("found %s, expected: ',' or end of string after '!%s'", p.peek().describe(), key.text)
	}
	op := p.next()
	switch {
	case op.kind == tokIdent && (op.text == "in" || op.text == "notin"):
		values, err := p.valueSet()
		if err != nil {
			return Requirement{}, err
		}
		return NewRequirement(key.text, Operator(op.text), values)
	case op.kind == tokEq || op.kind == tokDoubleEq || op.kind == tokNotEq || op.kind == tokGt || op.kind == tokLt:
		value, err := p.exactValue(op)
		if err != nil {
			return Requirement{}, err
		}
		return NewRequirement(key.text, exactOperator(op.kind), []string{value})
	}
	return Requirement{}, fmt.Errorf("found %s, expected: in, notin, =, ==, !=, >, <", op.describe())
}

func exactOperator(k tokKind) Operator {
	switch k {
	case tokDoubleEq:
		return DoubleEquals
	case tokNotEq:
		return NotEquals
	case tokGt:
		return GreaterThan
	case tokLt:
		return LessThan
	}
	return Equals
}

// exactValue parses the value after =, ==, !=, > or <; it may be empty
// (but not after ==).
func (p *parser) exactValue(op token) (string, error) {
	switch t := p.peek(); t.kind {
	case tokIdent:
		p.next()
		return t.text, nil
	case tokEOS, tokComma:
		if op.kind != tokDoubleEq {
			return "", nil
		}
	}
	return "", fmt.Errorf("found %s, expected: a value after '%s'", p.peek().describe(), op.text)
}

// valueSet parses "(" [ VALUE { "," VALUE } ] ")"; an empty element is
// the empty value.
func (p *parser) valueSet() ([]string, error) {
	if t := p.next(); t.kind != tokOpen {
		return nil, fmt.Errorf("found %s, expected: '('", t.describe())
	}
	var values []string
	for {
		v := ""
		if t := p.peek(); t.kind == tokIdent {
			v = p.next().text
		}
		values = append(values, v)
		switch t := p.next(); t.kind {
		case tokClose:
			return values, nil
		case tokComma:
		default:
			return nil, fmt.Errorf("found %s, expected: ',', ')' or identifier", t.describe())
		}
	}
}

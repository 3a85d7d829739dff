package apperr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// formatArg is the index of the format argument of each constructor.
var formatArg = map[string]int{
	"New": 1, "Invalid": 0, "Conflict": 0, "Unauthenticated": 0, "Forbidden": 0,
}

// message is one message found in the source: a format (or, for a Word, the
// word) at pos.
type message struct {
	pos    string
	text   string
	word   bool // an argument of NotFound or a Word conversion
	broken string
}

// TestCatalogCoversSource parses every Go file under internal/ and cmd/ and
// checks that each message given to an apperr constructor (or to a
// function that forwards its format parameter to one) is a constant with a
// zh-CN catalog entry using the same verbs in the same order, and that each
// word given to NotFound or Word has a translation.
func TestCatalogCoversSource(t *testing.T) {
	msgs := sourceMessages(t, "../../internal", "../../cmd")
	if len(msgs) < 100 {
		t.Fatalf("found %d messages in the source; the scan is broken", len(msgs))
	}
	for _, m := range msgs {
		switch {
		case m.broken != "":
			t.Errorf("%s: %s", m.pos, m.broken)
		case m.word:
			if _, ok := zhWords[m.text]; !ok {
				t.Errorf("%s: word %q has no zh-CN entry in zhWords", m.pos, m.text)
			}
		default:
			zh, ok := zhCN[m.text]
			if !ok {
				t.Errorf("%s: message %q has no zh-CN entry", m.pos, m.text)
				continue
			}
			if got, want := Verbs(zh), Verbs(m.text); !slices.Equal(got, want) {
				t.Errorf("%s: zh-CN entry of %q has verbs %v, want %v", m.pos, m.text, got, want)
			}
		}
	}
}

// Every catalog entry is Chinese and keeps its format's verbs.
func TestCatalogEntries(t *testing.T) {
	for en, zh := range zhCN {
		if got, want := Verbs(zh), Verbs(en); !slices.Equal(got, want) {
			t.Errorf("zh-CN entry of %q has verbs %v, want %v", en, got, want)
		}
		if !strings.ContainsFunc(zh, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("zh-CN entry of %q is not Chinese: %q", en, zh)
		}
	}
	for en, zh := range zhWords {
		if !strings.ContainsFunc(zh, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("zh-CN word of %q is not Chinese: %q", en, zh)
		}
	}
}

// sourceMessages returns the messages of the non-test Go files under dirs.
func sourceMessages(t *testing.T, dirs ...string) []message {
	t.Helper()
	pkgs := map[string][]*ast.File{} // by directory
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				return err
			}
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []message
	for dir, files := range pkgs {
		out = append(out, packageMessages(fset, filepath.Base(dir) == "apperr", files)...)
	}
	return out
}

// packageMessages scans one package. In package apperr itself the
// constructors are called unqualified.
func packageMessages(fset *token.FileSet, self bool, files []*ast.File) []message {
	consts := map[string]ast.Expr{}
	wrappers := map[string]int{} // functions forwarding a format parameter, by name
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok == token.CONST {
					for _, s := range n.Specs {
						vs := s.(*ast.ValueSpec)
						for i, name := range vs.Names {
							if i < len(vs.Values) {
								consts[name.Name] = vs.Values[i]
							}
						}
					}
				}
			case *ast.FuncDecl:
				if i := formatParam(n.Type); i >= 0 && n.Body != nil && callsConstructor(n.Body, self) {
					wrappers[n.Name.Name] = i
				}
			case *ast.AssignStmt: // mk := func(kind apperr.Kind, format string, args ...any) …
				for i, rhs := range n.Rhs {
					if fl, ok := rhs.(*ast.FuncLit); ok && i < len(n.Lhs) {
						if id, ok := n.Lhs[i].(*ast.Ident); ok {
							if j := formatParam(fl.Type); j >= 0 && callsConstructor(fl.Body, self) {
								wrappers[id.Name] = j
							}
						}
					}
				}
			}
			return true
		})
	}
	var out []message
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			pos := fset.Position(call.Pos()).String()
			name, isCtor := constructorName(call.Fun, self)
			idx, ok := formatArg[name]
			if !isCtor || (!ok && name != "NotFound" && name != "Word") {
				id, isIdent := call.Fun.(*ast.Ident)
				if !isIdent {
					return true
				}
				if idx, ok = wrappers[id.Name]; !ok {
					return true
				}
			}
			if idx >= len(call.Args) {
				return true
			}
			arg := call.Args[idx]
			word := isCtor && (name == "NotFound" || name == "Word")
			if id, ok := arg.(*ast.Ident); ok && !word && id.Name == "format" {
				return true // forwarded: checked where the wrapper is called
			}
			if word && name == "Word" {
				if _, ok := constString(arg, consts); !ok {
					return true // a closed set kept elsewhere (bucket names), listed in zhWords
				}
			}
			if id, ok := arg.(*ast.Ident); ok && word && id.Name == "what" {
				return true // NotFound's own parameter
			}
			if lit, ok := arg.(*ast.BasicLit); ok && !word && lit.Value == `"%s"` {
				return true // a message passed through: MessageIn translates it with Translate
			}
			s, ok := constString(arg, consts)
			switch {
			case !ok:
				out = append(out, message{pos: pos, broken: "message is not a constant string: give a literal format and the variable parts as arguments"})
			case word:
				out = append(out, message{pos: pos, text: s, word: true})
			default:
				out = append(out, message{pos: pos, text: s})
			}
			return true
		})
	}
	return out
}

// constructorName returns the name of an apperr function that fun names.
func constructorName(fun ast.Expr, self bool) (string, bool) {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && x.Name == "apperr" {
			return f.Sel.Name, true
		}
	case *ast.Ident:
		if self {
			return f.Name, true
		}
	}
	return "", false
}

// callsConstructor reports whether body calls an apperr constructor.
func callsConstructor(body ast.Node, self bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if name, ok := constructorName(call.Fun, self); ok {
				if _, ok := formatArg[name]; ok {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// formatParam returns the index of a string parameter called format, or -1.
func formatParam(ft *ast.FuncType) int {
	i := 0
	for _, field := range ft.Params.List {
		names := max(len(field.Names), 1)
		for _, n := range field.Names {
			if id, ok := field.Type.(*ast.Ident); ok && id.Name == "string" && n.Name == "format" {
				return i
			}
			i++
		}
		if len(field.Names) == 0 {
			i += names
		}
	}
	return -1
}

// constString evaluates a constant string expression: literals, + and
// the package's constants.
func constString(e ast.Expr, consts map[string]ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return constString(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok1 := constString(e.X, consts)
		b, ok2 := constString(e.Y, consts)
		return a + b, ok1 && ok2
	case *ast.Ident:
		if v, ok := consts[e.Name]; ok {
			return constString(v, consts)
		}
	}
	return "", false
}

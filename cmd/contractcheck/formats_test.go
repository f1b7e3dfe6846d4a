package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// formatFile is the name of a file that holds one format of one verb: <verb>_format_<name>.go.
var formatFile = regexp.MustCompile(`^([a-z]+(?:_[a-z]+)*)_format_([a-z0-9.]+)\.go$`)

// cmdRegistries are the format registries of formats.go by the verb prefix of their files
// (<verb>_format_<name>.go), with the formats each offers.
var cmdRegistries = map[string][]string{
	"test":            testOutputters.Names(),
	"inspect_fixture": inspectFixtureOutputters.Names(),
	"inspect_record":  inspectRecordOutputters.Names(),
	"inspect_traffic": inspectTrafficOutputters.Names(),
	"validate":        validateOutputters.Names(),
	"version":         versionOutputters.Names(),
	"capabilities":    capabilitiesOutputters.Names(),
}

// TestFormatsInOneFile holds cmd/contractcheck to one place for its verbs' formats (formats.go)
// and one file per format: a report.Registry, report.TextAndJSON or report.TextFormat is made in
// formats.go only; a format (a type with an Output(io.Writer, R) error method, or the text
// function given to report.TextAndJSON or report.TextFormat) is declared in a file
// <verb>_format_<name>.go, and <name> is a format of that verb's registry; the --format flag is
// bound in output.go only (addOutputFlags), so no verb offers a format the registry does not
// list. It reads the package's source, not its behaviour: each finding names a rule and the
// declaration that breaks it.
func TestFormatsInOneFile(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declaredIn := map[string]string{} // top-level function name → file
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				declaredIn[fd.Name.Name] = name
			}
		}
	}
	// inFormatFile reports whether file is <verb>_format_<name>.go with name one of verb's formats.
	inFormatFile := func(file string) bool {
		m := formatFile.FindStringSubmatch(file)
		return m != nil && slices.Contains(cmdRegistries[m[1]], m[2])
	}
	var broken []string
	for _, f := range parsed {
		file := fset.Position(f.Package).Filename
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			pos := fset.Position(n.Pos())
			switch n := n.(type) {
			case *ast.CompositeLit:
				if isReportSel(n.Type, "Registry") && file != "formats.go" {
					broken = append(broken, pos.String()+": a report.Registry made outside formats.go")
				}
			case *ast.CallExpr:
				if !isReportSel(n.Fun, "TextAndJSON") && !isReportSel(n.Fun, "TextFormat") {
					return true
				}
				if file != "formats.go" {
					broken = append(broken, pos.String()+": report.TextAndJSON or report.TextFormat outside formats.go")
				}
				for _, a := range n.Args {
					if id, ok := a.(*ast.Ident); ok && !inFormatFile(declaredIn[id.Name]) {
						broken = append(broken, pos.String()+": the text format "+id.Name+" is declared in "+declaredIn[id.Name]+", not in a <verb>_format_text.go")
					}
				}
			case *ast.FuncDecl:
				if n.Recv != nil && n.Name.Name == "Output" && isFormatter(n.Type) && !inFormatFile(file) {
					broken = append(broken, pos.String()+": a format (an Output method) outside a <verb>_format_<name>.go of a format its verb's registry holds")
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && s == "format" && file != "output.go" {
					broken = append(broken, pos.String()+`: the name "format" outside output.go: --format is bound by addOutputFlags only`)
				}
			}
			return true
		})
	}
	for _, file := range files {
		if m := formatFile.FindStringSubmatch(file); m != nil && !strings.HasSuffix(file, "_test.go") && !inFormatFile(file) {
			broken = append(broken, file+": named as a format, and "+m[1]+"'s registry in formats.go has no format "+m[2])
		}
	}
	for _, b := range broken {
		t.Error(b)
	}
}

// isReportSel reports whether e is report.<name>, possibly instantiated (report.Registry[R]).
func isReportSel(e ast.Expr, name string) bool {
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "report" && sel.Sel.Name == name
}

// isFormatter reports whether a method type is report.Formatter's Output: (io.Writer, R) error.
func isFormatter(ft *ast.FuncType) bool {
	if ft.Params.NumFields() != 2 || ft.Results.NumFields() != 1 {
		return false
	}
	sel, ok := ft.Params.List[0].Type.(*ast.SelectorExpr)
	res, rok := ft.Results.List[0].Type.(*ast.Ident)
	return ok && rok && sel.Sel.Name == "Writer" && res.Name == "error"
}

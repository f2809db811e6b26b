// Package surface lists what go doc shows of a package, so that the
// adapters' tests can pin their public surface: the constructor and its
// options, not the driver methods that only package lease calls.
package surface

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"sort"
	"strings"
)

// Of returns the exported names that go doc shows for the package in dir,
// test files left out: "Name" for a constant, variable, function or type,
// "Type.Method" for a method, and "Type.Field" for an exported field or
// embedded type of a struct.
func Of(dir string) ([]string, error) {
	fset := token.NewFileSet()
	noTests := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, noTests, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range pkgs {
		d := doc.New(p, dir, 0)
		for _, v := range append(d.Consts, d.Vars...) {
			names = append(names, v.Names...)
		}
		for _, f := range d.Funcs {
			names = append(names, f.Name)
		}
		for _, t := range d.Types {
			names = append(names, typeNames(t)...)
		}
	}
	sort.Strings(names)
	return names, nil
}

// typeNames lists a type, its constructors, methods, and exported fields.
func typeNames(t *doc.Type) []string {
	names := []string{t.Name}
	for _, v := range append(t.Consts, t.Vars...) {
		names = append(names, v.Names...)
	}
	for _, f := range t.Funcs {
		names = append(names, f.Name)
	}
	for _, m := range t.Methods {
		names = append(names, t.Name+"."+m.Name)
	}
	ast.Inspect(t.Decl, func(n ast.Node) bool {
		if st, ok := n.(*ast.StructType); ok {
			for _, f := range st.Fields.List {
				names = append(names, fieldNames(t.Name, f)...)
			}
			return false
		}
		return true
	})
	return names
}

// fieldNames names the exported fields f declares, or the embedded type.
func fieldNames(typ string, f *ast.Field) []string {
	var names []string
	for _, n := range f.Names {
		if n.IsExported() {
			names = append(names, typ+"."+n.Name)
		}
	}
	if len(f.Names) == 0 {
		if id := embeddedName(f.Type); ast.IsExported(id) {
			names = append(names, typ+"."+id)
		}
	}
	return names
}

func embeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

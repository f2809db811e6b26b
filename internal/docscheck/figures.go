package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// figure is a number in a README table cell.
type figure struct {
	figure, cell string
}

// boundMarks mark a cell's figures as bounds, not measurements: a limit
// ("≤ 2 s", "at most", "up to 0.5 s") or the ends of a range ("2–20",
// "TTL to 2×TTL").
var boundMarks = []string{"≤", "≥", "<", ">", "at most", "at least", "up to", "within", "–", " to "}

// number matches a figure: digits with decimals or thousands separators,
// not part of a word ("v3", "p99") or of a longer number.
var number = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.])(\d+(?:[.,]\d+)*)`)

// codeSpan matches inline code, whose digits are names, not figures.
var codeSpan = regexp.MustCompile("`[^`]*`")

// unsourcedFigures returns each figure in readme's tables (under root)
// that appears in none of the sources as a number and whose cell has no
// bound mark. Thousands separators are ignored: 41,964 is 41964.
func unsourcedFigures(root, readme string, sources []string) ([]figure, error) {
	b, err := os.ReadFile(filepath.Join(root, readme))
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, s := range sources {
		src, err := os.ReadFile(filepath.Join(root, s))
		if err != nil {
			return nil, err
		}
		for _, n := range numbers(string(src)) {
			known[n] = true
		}
	}
	var out []figure
	for _, cell := range tableCells(string(b)) {
		if isBound(cell) {
			continue
		}
		for _, n := range numbers(cell) {
			if !known[n] {
				out = append(out, figure{figure: n, cell: cell})
			}
		}
	}
	return out, nil
}

// tableCells returns the cells of every markdown table row in md, but
// not of the rows that separate a header from the body.
func tableCells(md string) []string {
	var cells []string
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.Trim(line, "|-: ") == "" {
			continue
		}
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
	}
	return cells
}

// numbers returns the figures of s outside code spans, without thousands
// separators.
func numbers(s string) []string {
	var out []string
	for _, m := range number.FindAllStringSubmatch(codeSpan.ReplaceAllString(s, " "), -1) {
		out = append(out, normalize(m[1]))
	}
	return out
}

// thousands matches a thousands separator: a comma before three digits.
var thousands = regexp.MustCompile(`,(\d{3})`)

// normalize drops thousands separators.
func normalize(n string) string { return thousands.ReplaceAllString(n, "$1") }

// isBound reports whether cell marks its figures as bounds.
func isBound(cell string) bool {
	for _, m := range boundMarks {
		if strings.Contains(cell, m) {
			return true
		}
	}
	return false
}

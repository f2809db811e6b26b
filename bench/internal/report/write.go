package report

import (
	"os"
	"path/filepath"
)

// Write writes results.json, results.md (r's page alone, with the plot
// beside it) and handoff.png to dir.
func Write(dir string, r *Results) error {
	if err := WriteJSON(dir, r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(Page("handoff.png", r)), 0o644); err != nil {
		return err
	}
	return Plot(filepath.Join(dir, "handoff.png"), r)
}

// PagePlot is where docs/benchmarks.md finds the hand-off plot of the
// results directory bench/results.
const PagePlot = "../bench/results/handoff.png"

// WritePage writes the page of the runs in the results directory dir
// (LoadRuns) to path, whole: make bench writes docs/benchmarks.md so.
func WritePage(path, dir string) error {
	runs, err := LoadRuns(dir)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(Page(PagePlot, runs...)), 0o644)
}

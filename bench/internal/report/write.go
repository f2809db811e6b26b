package report

import (
	"os"
	"path/filepath"
)

// Write writes results.json, results.md and handoff.png to dir.
func Write(dir string, r *Results) error {
	if err := WriteJSON(dir, r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(Markdown(r)), 0o644); err != nil {
		return err
	}
	return Plot(filepath.Join(dir, "handoff.png"), r)
}

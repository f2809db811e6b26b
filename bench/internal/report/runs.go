package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LoadRuns reads the runs a results directory holds: dir/results.json (a
// run of every scenario) and dir/partial-*/results.json (runs of some
// scenarios, BENCH_SCENARIOS), in that order. A missing dir/results.json
// is no error if a partial run is there; a directory with no run is.
func LoadRuns(dir string) ([]*Results, error) {
	paths, err := runPaths(dir)
	if err != nil {
		return nil, err
	}
	var runs []*Results
	for _, p := range paths {
		r, err := ReadJSON(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// runPaths returns the results.json files of dir's runs, as LoadRuns
// reads them.
func runPaths(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "partial-*", "results.json"))
	if err != nil {
		return nil, err
	}
	main := filepath.Join(dir, "results.json")
	if _, err := os.Stat(main); err == nil || len(paths) == 0 {
		paths = append([]string{main}, paths...)
	}
	return paths, nil
}

// RewriteRunPages rewrites the results.md beside each run's results.json
// in dir (its page alone, as Write wrote it), without running anything:
// for a change of presentation after a run.
func RewriteRunPages(dir string) error {
	paths, err := runPaths(dir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		r, err := ReadJSON(p)
		if err != nil {
			return err
		}
		md := filepath.Join(filepath.Dir(p), "results.md")
		if err := os.WriteFile(md, []byte(Page("handoff.png", r)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pick returns the newest of runs that ran scenario and measured it on at
// least one store (has), or nil: each table shows one run.
func pick(runs []*Results, scenario string, has func(*Store) bool) *Results {
	var best *Results
	for _, r := range runs {
		if !r.Ran(scenario) || !slices.ContainsFunc(r.Stores, has) {
			continue
		}
		if best == nil || strings.Compare(r.Started, best.Started) > 0 { // RFC 3339, UTC: sorts as text
			best = r
		}
	}
	return best
}

// Command benchdoc writes docs/benchmarks.md whole from the runs a results
// directory holds (results.json and partial-*/results.json), and each
// run's results.md beside it, without running anything: the page then
// says what the committed runs measured, as the code renders it now.
//
// From bench/ (make bench-doc):
//
//	go run ./cmd/benchdoc [-results results] [-doc ../docs/benchmarks.md]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/leasehold/leasehold/bench/internal/report"
)

func main() {
	results := flag.String("results", "results", "the results directory to read")
	doc := flag.String("doc", "../docs/benchmarks.md", "the page to write")
	flag.Parse()
	if err := report.WritePage(*doc, *results); err != nil {
		fmt.Fprintln(os.Stderr, "benchdoc:", err)
		os.Exit(1)
	}
	if err := report.RewriteRunPages(*results); err != nil {
		fmt.Fprintln(os.Stderr, "benchdoc:", err)
		os.Exit(1)
	}
}

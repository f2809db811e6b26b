package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// limit is one size limit: a file's, or the total of the files a glob
// matches.
type limit struct {
	// path is a file, or a glob with total set, relative to the root.
	path string
	// max is the most bytes allowed.
	max int
	// pending marks a limit not yet in force (enforcePending).
	pending bool
	// total sums every file path matches.
	total bool
}

// checkSizes measures each limit's file or files under root and returns a
// line per limit (size, limit, verdict), and whether a limit in force
// (every one when enforcePending) is exceeded. A missing file is an error.
func checkSizes(root string, ls []limit, enforcePending bool) (lines []string, over bool, err error) {
	for _, l := range ls {
		size, err := sizeOf(root, l)
		if err != nil {
			return lines, over, err
		}
		verdict := "ok"
		switch {
		case size <= l.max:
		case l.pending && !enforcePending:
			verdict = "OVER (pending: not enforced yet, see enforcePending)"
		default:
			verdict, over = "OVER", true
		}
		lines = append(lines, fmt.Sprintf("%-20s %7d bytes, limit %7d: %s", l.path, size, l.max, verdict))
	}
	return lines, over, nil
}

// sizeOf returns the size of l's file, or the total of its glob's.
func sizeOf(root string, l limit) (int, error) {
	paths := []string{filepath.Join(root, l.path)}
	if l.total {
		var err error
		if paths, err = filepath.Glob(filepath.Join(root, l.path)); err != nil {
			return 0, err
		}
	}
	n := 0
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return 0, err
		}
		n += int(fi.Size())
	}
	return n, nil
}

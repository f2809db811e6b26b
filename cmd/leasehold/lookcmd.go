package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
)

// Exit codes of run for a CMD that cannot start, as a shell, env and
// timeout report them.
const (
	exitCannotRun = 126 // found, but not executable
	exitNotFound  = 127
)

// cmdError is a CMD that could not start, with run's exit code for it.
type cmdError struct {
	code int
	err  error
}

func (e cmdError) Error() string { return e.err.Error() }
func (e cmdError) Unwrap() error { return e.err }

// lookCmd finds CMD as exec.LookPath does: through PATH for a name without
// a slash. Its error is a cmdError: 127 if there is no such file, 126 if
// the file cannot be run (no execute permission, a directory).
func lookCmd(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err // exec.Error repeats the name
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return "", cmdError{exitNotFound, fmt.Errorf("CMD %q not found: %w", name, err)}
	}
	return "", cmdError{exitCannotRun, fmt.Errorf("CMD %q cannot be run: %w", name, err)}
}

// startFailCode is the exit code for an exec of CMD that failed with err:
// 127 if the file is gone, 126 otherwise (no permission, not a program).
func startFailCode(err error) int {
	if errors.Is(err, fs.ErrNotExist) {
		return exitNotFound
	}
	return exitCannotRun
}

// exitCodeOf is run's exit code for err: a cmdError's, else 1.
func exitCodeOf(err error) int {
	var c cmdError
	if errors.As(err, &c) {
		return c.code
	}
	return 1
}

package history

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// Recorder appends events to a file as JSON lines, one write(2) per event,
// so that every event recorded before the process is killed is in the
// file. It is safe for concurrent use.
type Recorder struct {
	candidate string
	shard     string
	*sink
}

// sink is a Recorder's file, shared with its ForShard views.
type sink struct {
	mu  sync.Mutex
	f   *os.File
	err error
}

// Create opens path for appending (creating it if needed) and returns a
// Recorder that stamps candidate on events that name none.
func Create(path, candidate string) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &Recorder{candidate: candidate, sink: &sink{f: f}}, nil
}

// ForShard returns a Recorder that writes to r's file and stamps shard on
// events that name none. Closing either closes the file of both.
func (r *Recorder) ForShard(shard string) *Recorder {
	return &Recorder{candidate: r.candidate, shard: shard, sink: r.sink}
}

// Record appends e, with At set to Now() if zero and Candidate to the
// Recorder's if empty. It returns the first write error, and keeps
// returning it.
func (r *Recorder) Record(e Event) error {
	if e.At == 0 {
		e.At = Now()
	}
	if e.Candidate == "" {
		e.Candidate = r.candidate
	}
	if e.Shard == "" {
		e.Shard = r.shard
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		_, r.err = r.f.Write(append(line, '\n'))
	}
	return r.err
}

// Close closes the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}

// ReadFiles reads the histories in paths and merges them in order of At
// (stable, so one file's order is kept on ties). A last line cut short,
// as by a kill in the middle of a write, is ignored; any other bad line is
// an error.
func ReadFiles(paths ...string) ([]Event, error) {
	var all []Event
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		evs, err := Read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("history: %s: %w", p, err)
		}
		all = append(all, evs...)
	}
	slices.SortStableFunc(all, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return all, nil
}

// Read parses one history of JSON lines; see ReadFiles.
func Read(r io.Reader) ([]Event, error) {
	var evs []Event
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return evs, nil // a line without '\n' is cut short
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		evs = append(evs, e)
	}
}

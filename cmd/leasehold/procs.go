package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// proc is what run needs of a process's /proc/PID/stat.
type proc struct {
	pid, ppid int
	state     byte   // R, S, D, Z, ...: Z is a zombie, dead but not yet reaped
	start     uint64 // start time after boot, in clock ticks: tells PID reuse apart
}

// readProc reads /proc/PID/stat.
func readProc(pid int) (proc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, err
	}
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads
	// itrealvalue starttime ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return proc{}, fmt.Errorf("/proc/%d/stat: %d fields after comm", pid, len(f))
	}
	p := proc{pid: pid, state: f[0][0]}
	p.ppid, _ = strconv.Atoi(string(f[1]))
	p.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return p, nil
}

// procs reads every process in /proc; processes that end meanwhile are
// left out.
func procs() []proc {
	ents, _ := os.ReadDir("/proc")
	var ps []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// descendants returns the processes whose parent chain leads to root,
// zombies included.
func descendants(root int) []proc {
	kids := map[int][]proc{}
	for _, p := range procs() {
		kids[p.ppid] = append(kids[p.ppid], p)
	}
	var out []proc
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		for _, k := range kids[queue[0]] {
			out = append(out, k)
			queue = append(queue, k.pid)
		}
	}
	return out
}

// gone says whether p has ended: its PID is free or taken by another
// process, or it is a zombie.
func gone(p proc) bool {
	q, err := readProc(p.pid)
	return err != nil || q.start != p.start || q.state == 'Z'
}

# leasehold: make demo | make test
SHELL := /bin/bash
GO ?= go

.PHONY: demo test vet fmt-check images docs-check

# The main job: an in-process etcd, three candidates, a crash hand-over and a
# fenced resource rejecting the stale leader; then a resign, a preemption by
# a higher priority and an operator's handover to a named candidate.
demo:
	$(GO) run ./cmd/leasehold demo

# Every test, with the race detector, after building any missing store image.
# Container suites read ../shared/testcontainers.env when it is there (test
# traffic stays on loopback).
# The fault suite runs its default size: a few cycles of each client-side
# fault, and one of each store-node fault on a 3-node cluster of each store
# (Consul's take about 100 s), and a shard group (lease/shard) through 8
# fault cycles on single-node etcd and ZooKeeper (about 45 s each).
# The race runs build with go-zookeeper patched by scripts/racezk (through
# -modfile, in a temporary directory): v1.0.4 itself has a data race on
# every reconnect that keeps the session and has watches set (upstream
# go-zookeeper/zk#35, unmerged), which would fail whichever test ran when
# a reconnect hit it. Every other build uses go-zookeeper as released.
# Each fault run draws its timeline into a temporary directory; its log
# says where.
test: fmt-check vet images
	set -a; [ -f ../shared/testcontainers.env ] && source ../shared/testcontainers.env; set +a; \
	race=$$(mktemp -d) && trap 'rm -rf "$$race"' EXIT && modfile=$$(bash scripts/racezk/modfile.sh $$race) && \
	$(GO) test -race -modfile=$$modfile -count=1 -timeout 30m ./...
	$(MAKE) bench-quick

# The documents' sizes and the README tables' figures (internal/docscheck:
# README.md ≤ 8,192 bytes, docs/benchmarks.md ≤ 12 KiB, docs/faults.md
# ≤ 10 KiB, docs/policies.md ≤ 15 KiB and all docs/*.md ≤ 60 KiB (the last
# two behind its enforcePending, now set); every figure of a
# README table in docs/benchmarks.md or docs/faults.md, or marked as a
# bound), and docs/benchmarks.md against the committed runs it is made of
# (bench/internal/report: make bench-doc rewrites it). No containers;
# .ci/run calls it before make test.
docs-check:
	$(GO) run ./internal/docscheck
	cd bench && $(GO) test -count=1 ./internal/report/ ./internal/stat/

vet:
	$(GO) vet ./...
	cd bench && $(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

# The store images the integration suites run (etcd, ZooKeeper, Consul):
# present, pulled, or built here when no registry is reachable. See
# integration/images/build.sh.
images:
	bash integration/images/build.sh

# gorelease on the library module against the last v* tag (with none, as a
# first release, v0.1.0); VERSION=vX.Y.Z checks a proposed version. Needs the
# tags and a clean work tree; not part of make test. See
# scripts/release-check.sh.
.PHONY: release-check
release-check:
	VERSION=$(VERSION) bash scripts/release-check.sh

# Benchmarks (bench/, a module of its own): leasehold next to etcd's
# concurrency.Election, Consul's api.Lock, go-zookeeper's zk.Lock and
# valkeyrie, against etcd, ZooKeeper and Consul in containers. `bench` runs
# everything (about 18 min on 2 cores: 1,093 s in the full run of
# 2026-12-03 at 37c9abd; each scenario's time is logged and kept in
# results.json as scenario_s; bounded by a 60 min test timeout), writes
# bench/results/ and, through BENCH_DOC, docs/benchmarks.md whole (the
# method and one table per question, each from the newest run in
# bench/results/); `bench-quick` runs the unit tests of the benchmark's
# parts and checks that every scenario runs (a few seconds each, no
# timing is asserted). BENCH_SCENARIOS=policies make
# bench runs the planned handovers alone (about 2.5 min) into
# bench/results/partial-policies/ and rewrites the page with them.
# `bench-doc` rewrites docs/benchmarks.md (and each run's results.md) from
# the committed bench/results/ without running anything (cmd/benchdoc); a
# test in bench/internal/report (make docs-check) fails when the page is
# not what the code renders from them.
.PHONY: bench bench-quick bench-doc
bench: images
	set -a; [ -f ../shared/testcontainers.env ] && source ../shared/testcontainers.env; set +a; \
	cd bench && BENCH_OUT=results BENCH_DOC=../docs/benchmarks.md $(GO) test -count=1 -run TestBench -v -timeout 60m .

bench-doc:
	cd bench && $(GO) run ./cmd/benchdoc -results results -doc ../docs/benchmarks.md

bench-quick: images
	set -a; [ -f ../shared/testcontainers.env ] && source ../shared/testcontainers.env; set +a; \
	out=$$(mktemp -d) && cd bench && $(GO) test -count=1 ./internal/env/ ./internal/scenario/ ./internal/turn/ && \
	BENCH_QUICK=1 BENCH_OUT=$$out $(GO) test -count=1 -run TestBench -timeout 15m .

# The fault suite in soak mode: LEASEHOLD_SOAK_CYCLES fault cycles per
# backend (default 200), bounded by SOAK_TIMEOUT; writes docs/faults.md and
# its timeline picture docs/faults.png. Its six runs go three at once, the
# longest first (LEASEHOLD_SOAK_PARALLEL; -parallel lets them all wait
# for their turn).
# Needs Docker and the store images (make images).
SOAK_CYCLES ?= 200
SOAK_TIMEOUT ?= 3h
.PHONY: soak
soak: images
	set -a; [ -f ../shared/testcontainers.env ] && source ../shared/testcontainers.env; set +a; \
	LEASEHOLD_FAULTS_MIXED=1 LEASEHOLD_SOAK_CYCLES=$(SOAK_CYCLES) LEASEHOLD_FAULTS_REPORT=$(CURDIR)/docs/faults.md \
	$(GO) test -count=1 -timeout $(SOAK_TIMEOUT) -parallel 8 -run TestFaults -v ./integration/faults/

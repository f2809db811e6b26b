# leasehold: make demo | make test
SHELL := /bin/bash
GO ?= go

.PHONY: demo test vet fmt-check

# The main job: an in-process etcd, three candidates, a crash hand-over and a
# fenced resource rejecting the stale leader.
demo:
	$(GO) run ./cmd/leasehold demo

# Every test, with the race detector. Container suites read
# ../shared/testcontainers.env when it is there (test traffic stays on
# loopback).
test: fmt-check vet
	set -a; [ -f ../shared/testcontainers.env ] && source ../shared/testcontainers.env; set +a; \
	$(GO) test -race -count=1 -timeout 30m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

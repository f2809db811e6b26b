#!/usr/bin/env bash
# release-check: gorelease on the library module (the repository's root;
# bench/ is a module of its own that nothing imports, and is not released)
# against the last v* tag reachable from HEAD, or, with no tag yet, as a
# first release. VERSION names the proposed version (default: v0.1.0 for a
# first release; with a base, gorelease suggests one and checks VERSION if
# set). gorelease runs through `go run` at a pinned version: nothing is
# installed.
#
# gorelease reads the module's released versions and the base's source
# from the module proxy. This module is not on a public proxy, so a local
# file proxy serves them, made from git: the list of versions (empty, or
# the base) and the base's .info, .mod and .zip (git archive of the tag,
# nested modules left out as in any module zip). Every other module comes
# from RELEASE_GOPROXY (default https://proxy.golang.org), without
# "direct": a module the proxy does not list gets no retraction check
# rather than a git fetch, which fails where only the proxy is reachable.
set -euo pipefail
cd "$(dirname "$0")/.."

GORELEASE=golang.org/x/exp/cmd/gorelease@v0.0.0-20261113113407-e3970619a1a4
mod=$(sed -n 's/^module[[:space:]]*//p' go.mod)
base=$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)
proxy=$(mktemp -d)
trap 'rm -rf "$proxy"' EXIT
dir="$proxy/$(printf '%s' "$mod" | sed 's/[A-Z]/!\L&/g')/@v"
mkdir -p "$dir"

if [ -z "$base" ]; then
	: >"$dir/list"
	args=(-base=none "-version=${VERSION:-v0.1.0}")
	echo "release-check: $mod has no v* tag: checking it as a first release"
else
	echo "$base" >"$dir/list"
	git show "$base:go.mod" >"$dir/$base.mod"
	when=$(TZ=UTC0 git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ "$base")
	printf '{"Version":"%s","Time":"%s"}\n' "$base" "$when" >"$dir/$base.info"
	nested=$(git ls-tree -r --name-only "$base" | sed -n 's|^\(.*\)/go\.mod$|:(exclude)\1|p')
	# shellcheck disable=SC2086 # one pathspec per nested module
	git archive --format=zip --prefix="$mod@$base/" -o "$dir/$base.zip" "$base" -- . $nested
	args=("-base=$base")
	if [ -n "${VERSION:-}" ]; then args+=("-version=$VERSION"); fi
	echo "release-check: $mod against $base"
fi

GOPROXY="file://$proxy,${RELEASE_GOPROXY:-https://proxy.golang.org}" \
	GOPRIVATE= GONOPROXY= GONOSUMDB="$mod" \
	go run "$GORELEASE" "${args[@]}"

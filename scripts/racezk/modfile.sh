#!/usr/bin/env bash
# modfile.sh DIR: writes DIR/race.mod and DIR/race.sum, the go.mod and
# go.sum of the module in the current directory with
# github.com/go-zookeeper/zk replaced by a copy of the version it
# requires with lastzxid.patch applied, made in DIR/zk; prints the path
# of race.mod, for `go test -race -modfile=`. make test runs it from the
# repository's root; any module that requires go-zookeeper can use it.
#
# Why: go-zookeeper v1.0.4 reads Conn.lastZxid in sendSetWatches, on its
# connection loop, while the recvLoop it has just started writes it with
# each reply, unsynchronized: a data race on every reconnect that keeps
# the session, has watches set and gets a reply before the set-watches
# request is written (upstream go-zookeeper/zk#35, open since 2020;
# samuel/go-zookeeper#178 and #260). The race detector fails the test
# that is running when it happens, whichever it is. The patch makes the
# four accesses atomic and changes nothing else; the other builds (make
# demo, make bench, users' builds) use go-zookeeper as released.
set -euo pipefail
dir=${1:?usage: modfile.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mod=$(go env GOMOD)
case $mod in ''|/dev/null) echo "modfile.sh: not in a module" >&2; exit 1 ;; esac
version=$(go list -m -f '{{.Version}}' github.com/go-zookeeper/zk)
src=$(go mod download -json "github.com/go-zookeeper/zk@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] || { echo "modfile.sh: go-zookeeper $version: not in the module cache" >&2; exit 1; }
rm -rf "$dir/zk"
cp -R "$src" "$dir/zk"
chmod -R u+w "$dir/zk"
patch --quiet --forward -d "$dir/zk" -p1 <"$here/lastzxid.patch" >&2 ||
	{ echo "modfile.sh: lastzxid.patch does not apply to go-zookeeper $version: check whether it still races" >&2; exit 1; }
cp "$mod" "$dir/race.mod"
cp "${mod%.mod}.sum" "$dir/race.sum"
go mod edit -modfile="$dir/race.mod" -replace="github.com/go-zookeeper/zk=$dir/zk"
echo "$dir/race.mod"

#!/usr/bin/env bash
# Provides the Docker images of the stores the integration suites run
# against: etcd, Consul and ZooKeeper. `make images` runs it; it is
# idempotent and safe to run again (a second run only checks).
#
# Usage: integration/images/build.sh [consul] [etcd] [zookeeper]   (default: all)
#
# For each image (names as the tests read them, defaults are the official
# images, so that a machine with registry access simply pulls them):
#   LEASEHOLD_ETCD_IMAGE       gcr.io/etcd-development/etcd:v3.7.3
#   LEASEHOLD_CONSUL_IMAGE     hashicorp/consul:1.22.7
#   LEASEHOLD_ZOOKEEPER_IMAGE  zookeeper:3.8.0
# it does the first of these that works:
#   1. the image is present (`docker image inspect`): nothing to do;
#   2. `timeout 30 docker pull NAME` (skipped with LEASEHOLD_BUILD_IMAGES=1);
#   3. build it here and tag it NAME:
#      - etcd, consul: static binaries (CGO_ENABLED=0) built from scratch Go
#        modules under $CACHE/build-etcd and $CACHE/build-consul (needs Go
#        >= 1.25.9 and the module proxy), in a FROM scratch image;
#      - zookeeper: a Debian bookworm rootfs (debootstrap + apt-get install
#        zookeeper from the mirror apt already uses), imported with
#        `docker import`; needs root.
# LEASEHOLD_REBUILD_IMAGES=1 rebuilds present images (from the cached
# binaries and rootfs) and replaces them.
#
# Cache ($LEASEHOLD_CACHE_DIR, default /work/cache when it exists, else
# ~/.cache/leasehold-images): bin/{etcd,etcdctl,consul} (reused while their
# version matches), build-etcd/, build-consul/, zookeeper/rootfs (reused
# while its stamp matches). Delete a piece to rebuild it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

etcd_version=3.7.3
consul_version=1.22.7
debian_suite=bookworm
zookeeper_packages="zookeeper default-jre-headless"

etcd_image=${LEASEHOLD_ETCD_IMAGE:-gcr.io/etcd-development/etcd:v3.7.3}
consul_image=${LEASEHOLD_CONSUL_IMAGE:-hashicorp/consul:1.22.7}
zookeeper_image=${LEASEHOLD_ZOOKEEPER_IMAGE:-zookeeper:3.8.0}

if [[ -n ${LEASEHOLD_CACHE_DIR:-} ]]; then
	cache=$LEASEHOLD_CACHE_DIR
elif [[ -d /work/cache && -w /work/cache ]]; then
	cache=/work/cache
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/leasehold-images
fi
bin=$cache/bin

# The legacy builder: the engines this runs on have no BuildKit.
export DOCKER_BUILDKIT=0

log() { printf '[images %s] %s\n' "$(date +%T)" "$*"; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f s", e - s }'; }
die() {
	log "error: $*" >&2
	exit 1
}

# Work to undo on exit (temporary dirs, mounts), last registered first.
cleanups=()
on_exit() { cleanups=("$1" "${cleanups[@]}"); }
run_cleanups() {
	local c
	for c in "${cleanups[@]}"; do eval "$c" || true; done
}
trap run_cleanups EXIT

image_size() { docker image inspect -f '{{.Size}}' "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'; }

# ensure KIND NAME: present, pulled or built.
ensure() {
	local kind=$1 name=$2 t0
	t0=$(now)
	if [[ ${LEASEHOLD_REBUILD_IMAGES:-0} != 1 ]]; then
		if docker image inspect "$name" >/dev/null 2>&1; then
			log "$name: present"
			return 0
		fi
		if [[ ${LEASEHOLD_BUILD_IMAGES:-0} != 1 ]]; then
			log "$name: missing; trying docker pull (30 s at most)"
			if timeout 30 docker pull "$name"; then
				log "$name: pulled in $(since "$t0") ($(image_size "$name"))"
				return 0
			fi
			log "$name: pull failed after $(since "$t0"); building it locally"
		fi
	fi
	"build_${kind}_image" "$name"
	log "$name: built locally in $(since "$t0") ($(image_size "$name"))"
}

# --- static Go binaries ----------------------------------------------------

# bin_is PATH WANT ARGS...: PATH runs and its output (ARGS) contains WANT.
bin_is() {
	local path=$1 want=$2 out
	shift 2
	[[ -x $path ]] && out=$("$path" "$@" 2>&1) && [[ $out == *"$want"* ]]
}

# install_bin SRC DST: atomically, so that a user of DST never sees half a file.
install_bin() {
	mkdir -p "$(dirname "$2")"
	install -m 0755 "$1" "$2.tmp.$$"
	mv -f "$2.tmp.$$" "$2"
}

# prepare_module DIR TEMPLATE: DIR is a Go module whose go.mod comes from
# TEMPLATE, tidied (go.sum filled) once per template version.
prepare_module() {
	local dir=$1 tmpl=$2
	mkdir -p "$dir"
	if cmp -s "$tmpl" "$dir/.go.mod.tmpl" && [[ -f $dir/go.sum ]]; then
		return 0
	fi
	log "$(basename "$dir"): go mod tidy (downloads the modules on a cold cache)"
	cp "$tmpl" "$dir/go.mod"
	(cd "$dir" && go mod tidy)
	cp "$tmpl" "$dir/.go.mod.tmpl"
}

# go_build DIR OUT PACKAGE: a static, stripped binary.
go_build() {
	(cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$2" "$3")
}

consul_bin() {
	local dir=$cache/build-consul t0
	if bin_is "$bin/consul" "Consul v$consul_version" version; then
		log "consul binary: $bin/consul (cached)"
		return 0
	fi
	t0=$(now)
	command -v go >/dev/null || die "go is needed to build consul"
	prepare_module "$dir" "$here/consul/go.mod.tmpl"
	log "consul binary: go build (about 5 min on a cold build cache)"
	go_build "$dir" consul github.com/hashicorp/consul
	bin_is "$dir/consul" "Consul v$consul_version" version || die "$dir/consul is not Consul v$consul_version"
	install_bin "$dir/consul" "$bin/consul"
	log "consul binary: built in $(since "$t0"): $bin/consul"
}

etcd_bins() {
	local dir=$cache/build-etcd t0
	if bin_is "$bin/etcd" "etcd Version: $etcd_version" --version &&
		bin_is "$bin/etcdctl" "etcdctl version: $etcd_version" version; then
		log "etcd binaries: $bin/etcd, $bin/etcdctl (cached)"
		return 0
	fi
	t0=$(now)
	command -v go >/dev/null || die "go is needed to build etcd"
	prepare_module "$dir" "$here/etcd/go.mod.tmpl"
	log "etcd binaries: go build (about 1 min on a cold build cache)"
	go_build "$dir" etcd go.etcd.io/etcd/server/v3
	go_build "$dir" etcdctl go.etcd.io/etcd/etcdctl/v3
	bin_is "$dir/etcd" "etcd Version: $etcd_version" --version || die "$dir/etcd is not etcd $etcd_version"
	bin_is "$dir/etcdctl" "etcdctl version: $etcd_version" version || die "$dir/etcdctl is not etcdctl $etcd_version"
	install_bin "$dir/etcd" "$bin/etcd"
	install_bin "$dir/etcdctl" "$bin/etcdctl"
	log "etcd binaries: built in $(since "$t0"): $bin/etcd, $bin/etcdctl"
}

# --- FROM scratch images -----------------------------------------------------

# scratch_context KIND: sets ctx to a new build context dir (removed on
# exit) with rootfs/ holding a minimal /etc and a world-writable /tmp.
scratch_context() {
	ctx=$(mktemp -d "$cache/context-$1.XXXXXX")
	on_exit "rm -rf '$ctx'"
	mkdir -p "$ctx/rootfs/etc" "$ctx/rootfs/tmp"
	chmod 1777 "$ctx/rootfs/tmp"
	printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' >"$ctx/rootfs/etc/passwd"
	printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$ctx/rootfs/etc/group"
	echo 'hosts: files dns' >"$ctx/rootfs/etc/nsswitch.conf"
}

# docker_build CTX DOCKERFILE NAME VERSION: packs CTX/rootfs into
# CTX/rootfs.tar (owned by root) and builds NAME from DOCKERFILE; an image
# NAME replaced by the build is removed.
docker_build() {
	local ctx=$1 dockerfile=$2 name=$3 version=$4 old new
	tar --numeric-owner --owner=0 --group=0 -C "$ctx/rootfs" -cf "$ctx/rootfs.tar" .
	rm -rf "$ctx/rootfs"
	cp "$dockerfile" "$ctx/Dockerfile"
	old=$(docker image inspect -f '{{.Id}}' "$name" 2>/dev/null || true)
	docker build --rm --force-rm \
		--label "org.opencontainers.image.version=$version" \
		--label "org.opencontainers.image.description=built by leasehold integration/images/build.sh" \
		-t "$name" "$ctx"
	new=$(docker image inspect -f '{{.Id}}' "$name")
	if [[ -n $old && $old != "$new" ]]; then
		docker image rm "$old" >/dev/null 2>&1 || true
	fi
}

build_consul_image() {
	local name=$1 ctx
	consul_bin
	scratch_context consul
	mkdir -p "$ctx/rootfs/bin" "$ctx/rootfs/consul/data" "$ctx/rootfs/consul/config"
	chmod 0777 "$ctx/rootfs/consul/data" "$ctx/rootfs/consul/config"
	cp "$bin/consul" "$ctx/rootfs/bin/consul"
	docker_build "$ctx" "$here/consul/Dockerfile" "$name" "$consul_version"
}

build_etcd_image() {
	local name=$1 ctx d
	etcd_bins
	scratch_context etcd
	mkdir -p "$ctx/rootfs/usr/local/bin"
	for d in var/etcd var/lib/etcd data.etcd; do
		mkdir -p "$ctx/rootfs/$d"
		chmod 0777 "$ctx/rootfs/$d"
	done
	cp "$bin/etcd" "$bin/etcdctl" "$ctx/rootfs/usr/local/bin/"
	docker_build "$ctx" "$here/etcd/Dockerfile" "$name" "$etcd_version"
}

# --- ZooKeeper: a Debian rootfs ------------------------------------------------

# apt_uri SUITE: the first URI apt's own sources use for SUITE (one-line
# .list files and deb822 .sources files).
apt_uri() {
	local suite=$1 f out=""
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		out+=$(awk -v s="$suite" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == s) { print $i; exit }
			}' "$f")$'\n'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		out+=$(awk -v s="$suite" '
			BEGIN { RS = ""; FS = "\n" }
			{
				uris = ""; suites = ""; types = ""; enabled = "yes"
				for (k = 1; k <= NF; k++) {
					if ($k ~ /^#/ || index($k, ":") == 0) continue
					key = tolower(substr($k, 1, index($k, ":") - 1))
					val = substr($k, index($k, ":") + 1)
					gsub(/^[ \t]+|[ \t]+$/, "", val)
					if (key == "uris") uris = val
					else if (key == "suites") suites = val
					else if (key == "types") types = val
					else if (key == "enabled") enabled = val
				}
				if (types !~ /(^| )deb( |$)/ || enabled == "no") next
				n = split(suites, ss, /[ \t]+/)
				for (j = 1; j <= n; j++) if (ss[j] == s) { split(uris, us, /[ \t]+/); print us[1]; exit }
			}' "$f")$'\n'
	done
	out=$(sed -n '/./{p;q}' <<<"$out")
	echo "$out"
}

# zookeeper_rootfs: $cache/zookeeper/rootfs, a Debian rootfs with
# $zookeeper_packages installed, made once and reused while its stamp
# (suite, mirrors, packages) matches.
zookeeper_rootfs() {
	local dir=$cache/zookeeper mirror security want t0
	local rootfs=$dir/rootfs
	mirror=${LEASEHOLD_DEBIAN_MIRROR:-$(apt_uri "$debian_suite")}
	security=${LEASEHOLD_DEBIAN_SECURITY_MIRROR:-$(apt_uri "$debian_suite-security")}
	[[ -n $mirror ]] || die "no apt source for $debian_suite in /etc/apt: set LEASEHOLD_DEBIAN_MIRROR"
	want="suite=$debian_suite mirror=$mirror security=$security packages=$zookeeper_packages"
	if [[ -d $rootfs/usr && -f $dir/rootfs.ok && $(cat "$dir/rootfs.ok") == "$want" ]]; then
		log "zookeeper rootfs: $rootfs (cached)"
		return 0
	fi
	[[ $(id -u) == 0 ]] || die "building the ZooKeeper rootfs needs root (debootstrap, chroot)"
	if ! command -v debootstrap >/dev/null; then
		log "installing debootstrap"
		apt-get install -y --no-install-recommends debootstrap >/dev/null
	fi
	mkdir -p "$dir"
	if [[ ! -f $dir/debootstrap.ok || $(cat "$dir/debootstrap.ok") != "$debian_suite $mirror" ]]; then
		rm -f "$dir/rootfs.ok" "$dir/debootstrap.ok"
		rm -rf "$rootfs"
		t0=$(now)
		log "zookeeper rootfs: debootstrap --variant=minbase $debian_suite from $mirror"
		debootstrap --variant=minbase "$debian_suite" "$rootfs" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
			die "debootstrap failed; see $dir/debootstrap.log"
		echo "$debian_suite $mirror" >"$dir/debootstrap.ok"
		log "zookeeper rootfs: debootstrap took $(since "$t0")"
	fi
	t0=$(now)
	{
		echo "deb $mirror $debian_suite main"
		echo "deb $mirror $debian_suite-updates main"
		[[ -z $security ]] || echo "deb $security $debian_suite-security main"
	} >"$rootfs/etc/apt/sources.list"
	cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d" # start no services
	chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
	mountpoint -q "$rootfs/proc" || mount -t proc proc "$rootfs/proc"
	on_exit "umount '$rootfs/proc' 2>/dev/null"
	log "zookeeper rootfs: apt-get install $zookeeper_packages"
	chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C \
		sh -ec "apt-get update -q
			dpkg --configure -a
			apt-get install -y -q --no-install-recommends $zookeeper_packages
			apt-get clean" >"$dir/install.log" 2>&1 || die "apt-get install failed; see $dir/install.log"
	umount "$rootfs/proc"
	rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
		"$rootfs"/usr/share/info/* "$rootfs"/var/log/apt/* "$rootfs"/var/cache/debconf/*-old
	rm -f "$rootfs/usr/sbin/policy-rc.d"
	: >"$rootfs/etc/resolv.conf" # docker mounts its own
	echo "$want" >"$dir/rootfs.ok"
	log "zookeeper rootfs: packages installed in $(since "$t0")"
}

build_zookeeper_image() {
	local name=$1 rootfs=$cache/zookeeper/rootfs old new
	zookeeper_rootfs
	# Our files, refreshed on every image build (the rootfs cache is ours).
	install -m 0755 "$here/zookeeper/docker-entrypoint.sh" "$rootfs/docker-entrypoint.sh"
	install -D -m 0644 "$here/zookeeper/log4j.properties" "$rootfs/usr/local/share/leasehold/log4j.properties"
	mkdir -p "$rootfs/conf" "$rootfs/data" "$rootfs/datalog" "$rootfs/logs"
	rm -f "$rootfs/conf/zoo.cfg" "$rootfs/data/myid"
	old=$(docker image inspect -f '{{.Id}}' "$name" 2>/dev/null || true)
	log "$name: docker import of $rootfs"
	tar --numeric-owner -C "$rootfs" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -c . |
		docker import \
			-c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
			-c 'ENV ZOO_CONF_DIR=/conf ZOO_DATA_DIR=/data ZOO_DATA_LOG_DIR=/datalog ZOO_LOG_DIR=/logs' \
			-c 'WORKDIR /' \
			-c 'EXPOSE 2181 2888 3888' \
			-c 'ENTRYPOINT ["/docker-entrypoint.sh"]' \
			-c 'CMD ["zkServer.sh", "start-foreground"]' \
			-c 'LABEL org.opencontainers.image.version=3.8.0 org.opencontainers.image.description="built by leasehold integration/images/build.sh"' \
			-m "leasehold: Debian $debian_suite zookeeper" - "$name" >/dev/null
	new=$(docker image inspect -f '{{.Id}}' "$name")
	if [[ -n $old && $old != "$new" ]]; then
		docker image rm "$old" >/dev/null 2>&1 || true
	fi
}

# --- main --------------------------------------------------------------------

kinds=("$@")
[[ ${#kinds[@]} -gt 0 ]] || kinds=(consul etcd zookeeper) # consul first: the slowest, and wanted in $bin early
for kind in "${kinds[@]}"; do
	case $kind in
	consul | etcd | zookeeper) ;;
	*) die "unknown image kind '$kind' (want consul, etcd or zookeeper)" ;;
	esac
done

command -v docker >/dev/null || die "docker CLI not found"
docker version -f '{{.Server.Version}}' >/dev/null || die "the Docker engine does not answer"
mkdir -p "$cache"
exec 9>"$cache/.images.lock"
flock 9 # one build at a time

start=$(now)
for kind in "${kinds[@]}"; do
	case $kind in
	consul) ensure consul "$consul_image" ;;
	etcd) ensure etcd "$etcd_image" ;;
	zookeeper) ensure zookeeper "$zookeeper_image" ;;
	esac
done
log "done in $(since "$start")"

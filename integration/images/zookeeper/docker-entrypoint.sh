#!/bin/bash
# Entrypoint of the leasehold ZooKeeper test image (Debian bookworm's
# zookeeper 3.8.0 package on OpenJDK), built by build.sh where the official
# image (zookeeper:3.8.0) cannot be pulled.
#
# It mimics the official image's environment interface:
#   ZOO_MY_ID                 server id written to $ZOO_DATA_DIR/myid (1)
#   ZOO_SERVERS               space-separated `server.N=host:2888:3888;2181`
#                             (default `server.1=localhost:2888:3888;2181`)
#   ZOO_TICK_TIME (2000), ZOO_INIT_LIMIT (5), ZOO_SYNC_LIMIT (2),
#   ZOO_MAX_CLIENT_CNXNS (60), ZOO_STANDALONE_ENABLED (true),
#   ZOO_AUTOPURGE_PURGEINTERVAL (0), ZOO_AUTOPURGE_SNAPRETAINCOUNT (3),
#   ZOO_ADMINSERVER_ENABLED (here: false),
#   ZOO_4LW_COMMANDS_WHITELIST (here: srvr,ruok,mntr,conf), ZOO_CFG_EXTRA
#   (space-separated key=value lines appended to zoo.cfg), ZOO_CONF_DIR
#   (/conf), ZOO_DATA_DIR (/data), ZOO_DATA_LOG_DIR (/datalog), JVMFLAGS.
# Additions: ZOO_MIN_SESSION_TIMEOUT / ZOO_MAX_SESSION_TIMEOUT (ms; written
# as min/maxSessionTimeout when set) and ZOO_LOG_LEVEL (console log level,
# WARN). Differences: ZOO_ADMINSERVER_ENABLED defaults to false (the official
# image: true), the client port is always 2181, logs go to the console only
# (no /logs files), JVMFLAGS replaces our default heap/GC flags, and the
# server runs as root. As in the official image, zoo.cfg and myid are
# generated only when they do not exist yet.
#
# The official image's CMD is `zkServer.sh start-foreground`; that command
# (or none) starts the server, so one container request works with both
# images. Any other command is executed as given, after zoo.cfg is written.
set -euo pipefail
set -f # ZOO_SERVERS and ZOO_CFG_EXTRA are split on spaces, never globbed

ZOO_CONF_DIR=${ZOO_CONF_DIR:-/conf}
ZOO_DATA_DIR=${ZOO_DATA_DIR:-/data}
ZOO_DATA_LOG_DIR=${ZOO_DATA_LOG_DIR:-/datalog}
ZOO_LOG_DIR=${ZOO_LOG_DIR:-/logs}
mkdir -p "$ZOO_CONF_DIR" "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR" "$ZOO_LOG_DIR"

config=$ZOO_CONF_DIR/zoo.cfg
if [[ ! -f $config ]]; then
	{
		echo "dataDir=$ZOO_DATA_DIR"
		echo "dataLogDir=$ZOO_DATA_LOG_DIR"
		echo "clientPort=2181"
		echo "tickTime=${ZOO_TICK_TIME:-2000}"
		echo "initLimit=${ZOO_INIT_LIMIT:-5}"
		echo "syncLimit=${ZOO_SYNC_LIMIT:-2}"
		[[ -z ${ZOO_MIN_SESSION_TIMEOUT:-} ]] || echo "minSessionTimeout=$ZOO_MIN_SESSION_TIMEOUT"
		[[ -z ${ZOO_MAX_SESSION_TIMEOUT:-} ]] || echo "maxSessionTimeout=$ZOO_MAX_SESSION_TIMEOUT"
		echo "autopurge.snapRetainCount=${ZOO_AUTOPURGE_SNAPRETAINCOUNT:-3}"
		echo "autopurge.purgeInterval=${ZOO_AUTOPURGE_PURGEINTERVAL:-0}"
		echo "maxClientCnxns=${ZOO_MAX_CLIENT_CNXNS:-60}"
		echo "standaloneEnabled=${ZOO_STANDALONE_ENABLED:-true}"
		echo "admin.enableServer=${ZOO_ADMINSERVER_ENABLED:-false}"
		echo "4lw.commands.whitelist=${ZOO_4LW_COMMANDS_WHITELIST:-srvr,ruok,mntr,conf}"
		for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do
			echo "$server"
		done
		for entry in ${ZOO_CFG_EXTRA:-}; do
			echo "$entry"
		done
	} >"$config.tmp"
	mv "$config.tmp" "$config"
fi
if [[ ! -f $ZOO_DATA_DIR/myid ]]; then
	echo "${ZOO_MY_ID:-1}" >"$ZOO_DATA_DIR/myid"
fi

if [[ $# -gt 0 && ${1##*/} != zkServer.sh ]]; then
	exec "$@"
fi

# Wait (at most ZOO_PEER_DNS_WAIT seconds, default 10; 0: not at all) until
# the host name of every server in zoo.cfg resolves. Not in the official
# image: ZooKeeper 3.8.0 keeps a peer address that did not resolve when it
# started as unresolved for a while ("Failed connect to zk2/<unresolved>"),
# so an ensemble whose containers start one after another took 4-14 s to
# form instead of 2-4 s.
deadline=$((SECONDS + ${ZOO_PEER_DNS_WAIT:-10}))
for entry in $(grep '^server\.' "$config" || true); do
	host=${entry#*=}
	host=${host%%:*}
	until getent hosts "$host" >/dev/null || ((SECONDS >= deadline)); do
		sleep 0.1
	done
done

# Debian's jars: zookeeper.jar names its dependencies in its manifest's
# Class-Path, except the logging backend (slf4j -> log4j 1.2), the servlet
# API the AdminServer (Jetty) needs, and Netty's codec and resolver, which
# the Netty connection factory (serverCnxnFactory=...NettyServerCnxnFactory,
# needed for TLS on secureClientPort) loads: without them every connection
# to it fails with NoClassDefFoundError io/netty/handler/codec/....
classpath=/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar:/usr/share/java/servlet-api.jar
classpath+=:/usr/share/java/netty-codec.jar:/usr/share/java/netty-resolver.jar
# shellcheck disable=SC2086 # JVMFLAGS is a list of flags
exec java \
	-Dzookeeper.log.dir="$ZOO_LOG_DIR" \
	-Dzookeeper.root.logger="${ZOO_LOG_LEVEL:-WARN}, CONSOLE" \
	-Dlog4j.configuration=file:/usr/local/share/leasehold/log4j.properties \
	${JVMFLAGS:--Xmx256m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError} \
	-cp "$classpath" \
	org.apache.zookeeper.server.quorum.QuorumPeerMain "$config"

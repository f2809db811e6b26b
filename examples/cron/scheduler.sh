#!/bin/sh
# A leader-only scheduler: run it under `leasehold run`, on every host.
# Only the leader's copy runs; leasehold stops it (SIGTERM, then SIGKILL)
# before another host can take over, and restarts the campaign.
# INTERVAL is in seconds (default 60).
set -eu
dir=$(dirname "$0")
while :; do
  "$dir/job.sh"
  sleep "${INTERVAL:-60}"
done

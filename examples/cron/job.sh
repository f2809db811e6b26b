#!/bin/sh
# The job. leasehold puts the election, the fencing token and the leader's
# identity in the environment; pass the token to whatever the job writes
# to, so that a stale leader's writes can be refused.
echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) token=$LEASEHOLD_TOKEN identity=$LEASEHOLD_IDENTITY" >> "${JOB_LOG:-/dev/stdout}"

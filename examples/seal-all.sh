#!/usr/bin/env bash
# The main job on the bundled examples: seal every episode with the `sealed-trace` CLI, check
# its exit status (0 sealed, 1 refused) and verify its outcome byte for byte against the
# expected outcome document. Exits non-zero if any episode does not behave as expected.
set -u
cd "$(dirname "$0")/episodes" || exit 2
st=${SEALED_TRACE:-sealed-trace}
failed=0
for kind in sealed refused; do
  want=$([ "$kind" = sealed ] && echo 0 || echo 1)
  for episode in "$kind"/*.json; do
    name=$(basename "$episode" .json)
    outcome=$("$st" seal "$episode")
    status=$?
    disposition=$(printf '%s' "$outcome" | grep -o '"practice_disposition":"[a-z_]*"' | cut -d'"' -f4)
    if [ "$status" != "$want" ]; then
      echo "FAIL $episode: exit $status, expected $want" >&2; failed=1; continue
    fi
    if ! "$st" verify "expected/$name.outcome.json" "$episode" >/dev/null; then
      echo "FAIL $episode: outcome differs from expected/$name.outcome.json" >&2; failed=1; continue
    fi
    printf '%-8s %-42s %s\n' "$kind" "$name" "$disposition"
  done
done
[ "$failed" = 0 ] && echo "all example episodes sealed or refused as expected, byte for byte"
exit "$failed"

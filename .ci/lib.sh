# Shared by .ci/run and .ci/container-entrypoint: run the test command and end with one line
# "N passed, N failed" built from tap's totals; lab state the run leaves behind counts as a failure.
# Needs bash, coreutils, grep, sed and netns/ only (no Node), so it reports even when the checkout is broken.

ci_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The labs' marks on this machine (namespaces, state directories, /etc/netns hosts), from netns/leftovers.
ci_marks() {
  "$ci_root/netns/leftovers" 2>/dev/null | grep -E '^(namespace|state|hosts) ' | sort || true
}

# The labs whose marks are there now but were not in $1 (marks taken earlier by ci_marks), one per line.
ci_new_labs() {
  comm -13 <(printf '%s\n' "$1") <(ci_marks) |
    sed -nE 's#^namespace rl-([a-z][a-z0-9]*)-.*#\1#p; s#^hosts /etc/netns/rl-([a-z][a-z0-9]*)-.*#\1#p; s#^state /run/rocelab/##p' |
    sort -u
}

# ci_run_summarised BEFORE LOG COMMAND...: runs COMMAND with its output on stdout and in LOG, then prints
# "N passed, N failed" and returns COMMAND's status (1 when it left labs behind that were not in BEFORE).
ci_run_summarised() {
  local before=$1 log=$2 status summary pass fail leaked
  shift 2
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}

  # tap's closing summary looks like "# { total: 126, pass: 125, fail: 1 }".
  summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -n 1)
  pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
  fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
  pass=${pass:-0}
  fail=${fail:-0}
  leaked=$(ci_new_labs "$before")
  if [ -n "$leaked" ]; then
    echo "the tests left lab state behind (labs: $(echo $leaked)); netns/leftovers shows it, netns/cleanup removes it" >&2
    fail=$((fail + 1))
    status=1
  fi
  if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then
    # Set-up, type-check or lint failed, or tap itself did: count it, so the line never reads as green.
    echo "$* exited with status $status before or outside tap's totals" >&2
    fail=1
  fi
  if [ "$fail" -gt 0 ]; then
    # Only the end of a long log may be read: name the failed assertions there, with the test file each
    # belongs to (tap's top-level "not ok N - FILE" lines) and tap's diagnostics' first lines.
    echo "failed:"
    grep -nE '^[[:space:]]*not ok ' "$log" | head -n 60
  fi
  echo "$pass passed, $fail failed"
  return "$status"
}

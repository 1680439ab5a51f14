# Shared by netns/leftovers and netns/cleanup: find what rocelab labs own on this machine, from the same
# marks the TypeScript teardown uses (src/lab/live/names.ts, provision.ts): namespaces rl-<lab>-<node>,
# processes titled rocelab-<lab>-<role> (or, before they set the title, a rocelab entry point with
# --lab <lab> on the command line), and state in /run/rocelab/<lab>. Needs bash, iproute2 and /proc only.

ROCELAB_STATE=/run/rocelab

# The lab regex: one lab (validated) or any lab name.
lab_pattern() {
  local lab=${1:-}
  if [[ -z $lab ]]; then
    printf '%s' '[a-z][a-z0-9]*'
  elif [[ $lab =~ ^[a-z][a-z0-9]{0,15}$ ]]; then
    printf '%s' "$lab"
  else
    echo "lab name \"$lab\" must be 1-16 lowercase letters and digits, starting with a letter" >&2
    return 2
  fi
}

# PIDs of lab processes, one per line.
lab_pids() {
  local pattern=$1 dir pid cmd first
  local -a args
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    # mapfile is a builtin: no process per PID (a `tr` each took seconds on a busy machine).
    { mapfile -d '' -t args <"$dir/cmdline"; } 2>/dev/null || continue
    cmd="${args[*]}"
    [[ -z $cmd ]] && continue
    first=${cmd%% *}
    if [[ $first =~ ^rocelab-($pattern)-[^[:space:]]+$ ]] ||
      [[ $cmd =~ (device-main|supervisor-main|udp-tool)\.js[[:space:]].*--lab[[:space:]]($pattern)([[:space:]]|$) ]]; then
      echo "$pid"
    fi
  done
}

# Namespaces of labs, one per line.
lab_namespaces() {
  local pattern=$1
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^rl-($pattern)-" || true
}

# State directories of labs, one per line.
lab_state_dirs() {
  local pattern=$1 dir
  [[ -d $ROCELAB_STATE ]] || return 0
  for dir in "$ROCELAB_STATE"/*; do
    [[ -d $dir && ${dir##*/} =~ ^($pattern)$ ]] && echo "$dir"
  done
  return 0
}

# /etc/netns directories of labs (hosts files that name the lab's nodes), one per line.
lab_netns_etc() {
  local pattern=$1 dir
  [[ -d /etc/netns ]] || return 0
  for dir in /etc/netns/rl-*; do
    [[ -e $dir || -L $dir ]] || continue
    [[ ${dir##*/} =~ ^rl-($pattern)- ]] && echo "$dir"
  done
  return 0
}

# shellcheck shell=sh
# Shared by slurm-prolog and slurm-healthcheck (sourced, not run): reads the
# settings and runs `hnprecheck node` once, leaving its exit code in
# $hn_rc, its text report in $hn_report and a one-line summary of what
# failed in $hn_reason ("hnprecheck: FAIL NET-PLANE-ADDRESS eth0, ...").
#
# Settings, from the environment or $HNPRECHECK_CONFIG (default
# /etc/default/hnprecheck, sourced when it exists):
#   HNPRECHECK_PROFILE     the cluster profile (default /etc/hnprecheck/profile.yaml;
#                          "embedded" runs with the embedded default profile). A
#                          profile file that does not exist is a failure, never a
#                          silent fallback.
#   HNPRECHECK_TIMEOUT     seconds for the whole run (each wrapper has its default)
#   HNPRECHECK_ARGS        more arguments for `hnprecheck node` (e.g. --strict)
#   HNPRECHECK_PROMETHEUS  write --prometheus there too (e.g.
#                          /var/lib/node_exporter/textfile/hnprecheck.prom)
#   HNPRECHECK_STATE_DIR   where the last report is kept (default /run/hnprecheck)
#   HNPRECHECK_BIN         the binary (default /usr/bin/hnprecheck)

# slurmd runs its Prolog and HealthCheckProgram with no PATH.
: "${PATH:=/usr/sbin:/usr/bin:/sbin:/bin}"
export PATH
hn_config="${HNPRECHECK_CONFIG:-/etc/default/hnprecheck}"
# shellcheck disable=SC1090
[ -r "$hn_config" ] && . "$hn_config"
hn_bin="${HNPRECHECK_BIN:-/usr/bin/hnprecheck}"
hn_profile="${HNPRECHECK_PROFILE:-/etc/hnprecheck/profile.yaml}"
hn_state="${HNPRECHECK_STATE_DIR:-/run/hnprecheck}"

# hn_run_node NAME DEFAULT_TIMEOUT: runs the check; the report goes to
# $hn_state/NAME.txt (and stays there for the operator).
hn_run_node() {
  hn_report="$hn_state/$1.txt"
  mkdir -p "$hn_state" 2>/dev/null || hn_report="$(mktemp)"
  set -- node --no-color --quiet --timeout "${HNPRECHECK_TIMEOUT:-$2}"
  if [ "$hn_profile" != embedded ]; then
    if [ ! -f "$hn_profile" ]; then
      hn_rc=2
      hn_reason="hnprecheck: no profile at $hn_profile (set HNPRECHECK_PROFILE in $hn_config)"
      echo "$hn_reason" >"$hn_report"
      return
    fi
    set -- "$@" --profile "$hn_profile"
  fi
  [ -n "${HNPRECHECK_PROMETHEUS:-}" ] && set -- "$@" --prometheus "$HNPRECHECK_PROMETHEUS"
  # shellcheck disable=SC2086  # HNPRECHECK_ARGS is a list of words
  "$hn_bin" "$@" ${HNPRECHECK_ARGS:-} >"$hn_report" 2>&1
  hn_rc=$?
  hn_reason=""
  [ "$hn_rc" -eq 0 ] && return
  # "  FAIL   CODE  entity  message": code and entity of every problem.
  # Failures and errors; warnings only when there are none (--strict).
  problems=$(awk '$1 == "FAIL" || $1 == "ERROR" { printf "%s%s %s %s", sep, $1, $2, $3; sep = ", " }' "$hn_report")
  [ -n "$problems" ] ||
    problems=$(awk '$1 == "WARN" { printf "%s%s %s %s", sep, $1, $2, $3; sep = ", " }' "$hn_report")
  case "$hn_rc" in
    1) hn_reason="hnprecheck: ${problems:-a check failed}" ;;
    2) hn_reason="hnprecheck: bad usage or invalid input: $(tail -n 1 "$hn_report")" ;;
    *) hn_reason="hnprecheck: exit $hn_rc: ${problems:-$(tail -n 1 "$hn_report")}" ;;
  esac
  # scontrol and syslog take one line of reasonable length.
  hn_reason=$(printf '%s' "$hn_reason" | tr '\n' ' ' | cut -c1-240)
  logger -t hnprecheck -- "$hn_reason (report: $hn_report)" 2>/dev/null || true
}

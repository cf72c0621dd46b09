#!/usr/bin/env bash
# The shell part of the releasegate GitHub Action (action.yml): runs `releasegate check`, writes the reports,
# sets the step outputs and decides the step's exit status. Kept in a file so it can be tested without a runner
# (tests/test_action_script.py). Every input is an environment variable (action.yml maps the inputs to them, so
# no input text is ever pasted into shell code):
#   RG_RESULTS      results files, separated by spaces or newlines; NAME=path names a file's release; globs expand
#   RG_CASES        case table joined on case_id (optional)
#   RG_BASELINE     the live release (optional: the policy's)
#   RG_CANDIDATES   candidates, separated by spaces or newlines (optional: every other release)
#   RG_POLICY       policy TOML (optional)
#   RG_OUTPUT_DIR   directory for the reports (default releasegate-report), created if missing
#   RG_FORMATS      report formats among md html pdf json (default "md html pdf json"); files are report.<format>
#   RG_REPORT_ONLY  true: report DON'T SHIP or NOT PROVEN without failing (bad input still fails); default false
#   RG_STEP_SUMMARY false: do not append the verdict to the job summary; default true
#   RG_ARGS         more arguments for `releasegate check`, quoted as in a shell (e.g. --critical "Out of scope")
#   RG_COMMENT      false: do not write the pull-request comment ($dir/comment.md); default true
#   RELEASEGATE     the command to run (default "releasegate"; the tests use "python -m releasegate")
# Step outputs ($GITHUB_OUTPUT): verdict (ship | dont_ship | not_proven | error), exit-code, error (why the gate
# could not run, one line; empty otherwise), report-dir, and markdown-path, html-path, pdf-path, json-path,
# comment-path for the files written (empty when not written).
# Exit status: 0 SHIP (or NOT PROVEN allowed by the policy's not_proven = "warn", or DON'T SHIP / NOT PROVEN with
# report-only), 1 DON'T SHIP, 3 NOT PROVEN (the data cannot show the candidate no worse), 2 bad input (whatever
# report-only says).
# Portable to bash 3.2 (macOS runners): no associative arrays, no mapfile.
set -uo pipefail

escape() {  # workflow-command message escaping (GitHub's toolkit: % CR LF)
  local text=${1//'%'/%25}
  text=${text//$'\r'/%0D}
  printf '%s' "${text//$'\n'/%0A}"
}

one_line() {  # a step output value is one line
  printf '%s' "$1" | tr '\r\n' '  '
}

output() {  # $GITHUB_OUTPUT reads one name=value per line: a line break in a value would add an output
  local value
  value=$(one_line "$2")
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$value" >>"$GITHUB_OUTPUT"
  else
    printf 'output %s=%s\n' "$1" "$value"
  fi
}

fail() {  # a problem with the action's own inputs: the same exit status as releasegate's bad input
  echo "releasegate action: error: $1" >&2
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::error title=releasegate::$(escape "$1")"; fi
  output verdict error
  output exit-code 2
  output error "$(one_line "$1")"
  exit 2
}

boolean() {  # boolean VARIABLE INPUT-NAME VALUE DEFAULT: sets VARIABLE to true or false
  local value
  value=$(printf '%s' "${3:-$4}" | tr '[:upper:]' '[:lower:]')
  case "$value" in
    true|yes|1|on) printf -v "$1" true ;;
    false|no|0|off) printf -v "$1" false ;;
    *) fail "$2 must be true or false, got '$3'" ;;
  esac
}

boolean report_only report-only "${RG_REPORT_ONLY:-}" false
boolean step_summary step-summary "${RG_STEP_SUMMARY:-}" true
boolean comment comment "${RG_COMMENT:-}" true
dir=${RG_OUTPUT_DIR:-releasegate-report}
# The report paths are step outputs, one line each: a folder whose name breaks the line cannot be one.
case "$dir" in
  *$'\n'*|*$'\r'*) fail "output-dir must be one line; it holds a line break: $(one_line "$dir")" ;;
esac
read -r -a command <<<"${RELEASEGATE:-releasegate}"

args=(check)
# Results: split on whitespace with glob expansion on purpose (evals/*.jsonl); a pattern that matches nothing
# stays as it is and releasegate reports the missing file. They go after `--`, last: a committed file named
# `--candidate=r2.csv` is a path, never an option.
results=()
set +f
for word in ${RG_RESULTS:-}; do results+=("$word"); done
set -f
[ ${#results[@]} -gt 0 ] || fail "no results given (input 'results')"
if [ -n "${RG_CASES:-}" ]; then args+=(--cases "$RG_CASES"); fi
if [ -n "${RG_BASELINE:-}" ]; then args+=(--baseline "$RG_BASELINE"); fi
# No policy input means no policy: a CI gate does not pick up a releasegate.toml it was not pointed at.
if [ -n "${RG_POLICY:-}" ]; then args+=(--policy "$RG_POLICY"); else args+=(--no-policy); fi
for name in ${RG_CANDIDATES:-}; do args+=(--candidate "$name"); done
RG_ARGS=${RG_ARGS:-}
if [ -n "${RG_ARGS//[[:space:]]/}" ]; then
  # xargs splits with the shell's quoting rules but never runs the text as code.
  parsed=$(printf '%s' "$RG_ARGS" | xargs -n 1 printf '%s\n') || fail "cannot split args (unmatched quote?): $RG_ARGS"
  while IFS= read -r word; do args+=("$word"); done <<<"$parsed"
fi
if [ "$step_summary" = false ]; then args+=(--no-step-summary); fi

formats=""
for format in ${RG_FORMATS-md html pdf json}; do
  case "$format" in
    md|html|pdf|json) ;;
    *) fail "unknown format '$format' in formats; use md, html, pdf, json" ;;
  esac
  case " $formats " in *" $format "*) continue ;; esac
  formats="$formats $format"
  args+=(-o "$dir/report.$format")
done
if [ "$comment" = true ]; then
  # The short comment the action posts; it points to this run's page, whose artifact holds the full note.
  args+=(--comment "$dir/comment.md")
  if [ -n "${GITHUB_SERVER_URL:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
    args+=(--comment-link "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID")
  fi
fi
if [ -n "$formats" ] || [ "$comment" = true ]; then
  mkdir -p -- "$dir" || fail "cannot create the output directory $dir"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stdout=$work/stdout
stderr=$work/stderr
# Each verdict in plain words, a line per candidate in the order of the verdict lines: the annotations open with it.
args+=(-o "$work/plain.txt")
"${command[@]}" "${args[@]}" -- "${results[@]}" >"$stdout" 2>"$stderr"
rc=$?
cat "$stdout"
grep -v "^wrote $work/" "$stderr" >&2

case $rc in
  0) verdict=ship ;;
  1) verdict=dont_ship ;;
  3) verdict=not_proven ;;
  *) verdict=error ;;
esac
# Exit status 0 with a NOT PROVEN line: the policy lets it pass (not_proven = "warn"); the verdict says so.
if [ $rc -eq 0 ] && grep -q "^NOT PROVEN " "$stdout"; then verdict=not_proven; fi
# Exit status 1 is DON'T SHIP (3 NOT PROVEN) only with a verdict to show for it: a crash (a Python traceback
# also exits 1) is an error, which report-only must not turn green.
status=$rc
if { [ $rc -eq 1 ] && ! grep -q "^DON'T SHIP " "$stdout"; } || { [ $rc -eq 3 ] && ! grep -q "^NOT PROVEN " "$stdout"; }; then
  verdict=error
  rc=2
fi
why=""
code=""
if [ "$verdict" = error ]; then
  why=$(grep '^releasegate: error\[[a-z-]*\]: ' "$stderr" | tail -n 1)
  # The kind of error (releasegate.errors: file, column, value, policy, pairing, runs, ...), for a later step.
  code=$(printf '%s' "$why" | sed -n 's/^releasegate: error\[\([a-z-]*\)\]: .*/\1/p')
  [ -n "$why" ] || why="releasegate check ended without a verdict (exit status $status); see the job log"
  [ -n "$code" ] || code=internal
fi
output verdict "$verdict"
output exit-code "$rc"
output error "$(one_line "$why")"
output error-code "$code"
output report-dir "$dir"
for format in md html pdf json; do
  path=""
  case " $formats " in *" $format "*) [ "$verdict" = error ] || path="$dir/report.$format" ;; esac
  key=$format-path
  [ "$format" = md ] && key=markdown-path
  output "$key" "$path"
done
path=""
if [ "$comment" = true ] && [ "$verdict" != error ]; then path="$dir/comment.md"; fi
output comment-path "$path"

if [ "${GITHUB_ACTIONS:-}" = true ]; then
  level=error
  [ "$report_only" = true ] && level=warning
  # An annotation opens with the candidate's paragraph in plain words; the check line's statistics follow.
  plain=()
  if [ -f "$work/plain.txt" ]; then
    while IFS= read -r line; do plain+=("$line"); done <"$work/plain.txt"
  fi
  k=0
  while IFS= read -r line; do
    case "$line" in
      "SHIP "*|"DON'T SHIP "*|"NOT PROVEN "*) ;;
      *) continue ;;
    esac
    message=$line
    if [ $k -lt ${#plain[@]} ]; then message="${plain[$k]}"$'\n\n'"Statistics: $line"; fi
    k=$((k + 1))
    case "$line" in
      "DON'T SHIP "*) echo "::$level title=releasegate::$(escape "$message")" ;;
      # NOT PROVEN is amber: an error when it blocks the job, a warning when the policy or report-only lets it pass.
      "NOT PROVEN "*) if [ $rc -eq 3 ]; then echo "::$level title=releasegate::$(escape "$message")";
                      else echo "::warning title=releasegate::$(escape "$message")"; fi ;;
    esac
  done <"$stdout"
  if [ "$verdict" = error ]; then echo "::error title=releasegate::$(escape "$why")"; fi
fi
if [ "$verdict" = error ] && [ "$step_summary" = true ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { printf '### releasegate: error\n\n```\n'; cat "$stderr"; printf '```\n\n'; } >>"$GITHUB_STEP_SUMMARY"
fi

if [ $rc -eq 1 ] && [ "$report_only" = true ]; then
  echo "releasegate action: DON'T SHIP reported; not failing the job (report-only)" >&2
  exit 0
fi
if [ $rc -eq 3 ] && [ "$report_only" = true ]; then
  echo "releasegate action: NOT PROVEN reported; not failing the job (report-only)" >&2
  exit 0
fi
exit $rc

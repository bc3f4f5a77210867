#!/usr/bin/env bash
# The GitHub composite action's step (action.yml): run `trainlint doctor` once, with workflow
# annotations on stdout, the SARIF report written to $TL_SARIF and the Markdown summary appended
# to $GITHUB_STEP_SUMMARY; the verdict and exit code go to $GITHUB_OUTPUT. Runs locally too:
#   TL_PATHS=runs GITHUB_STEP_SUMMARY=/tmp/s.md bash scripts/action.sh
set -u
trainlint_cmd=${TRAINLINT:-trainlint}
work=$(mktemp -d "${TMPDIR:-/tmp}/trainlint.XXXXXX")
summary_md="$work/summary.md"
json_out="$work/result.json"
outputs=(--output "$summary_md" --output "$json_out")
if [ -n "${TL_SARIF:-}" ]; then
  outputs+=(--output "$TL_SARIF")
fi
# shellcheck disable=SC2086  # TL_PATHS and TL_ARGS are word lists on purpose
$trainlint_cmd doctor ${TL_PATHS:-.} ${TL_ARGS:-} --fail-on "${TL_FAIL_ON:-fail}" --format github "${outputs[@]}"
code=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$summary_md" ]; then
  cat "$summary_md" >> "$GITHUB_STEP_SUMMARY"
fi
verdict=$(python -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$json_out" 2>/dev/null || echo NOT-CHECKED)
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "verdict=$verdict"; echo "exit-code=$code"; } >> "$GITHUB_OUTPUT"
fi
rm -rf "$work"
exit "$code"

#!/usr/bin/env bash
# Regenerates the result section of docs/validation.md from `clustersim validate` on the public rows.
# Usage: scripts/validation_table.sh [rows.csv [title]]  (prints markdown; paste it under "## Result")
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${1:-../shared/validation/public_rows.csv}"
title="${2:-development set}"
out=$(build/sim/cli/clustersim validate "$rows")
echo "## Result ($title, $(date +%F))"
echo
echo "**$(echo "$out" | tail -n 1).**"
echo
echo "| source | rows | MAPE |"
echo "|---|---|---|"
echo "$out" | awk '/^  [^ ].*% over [0-9]+ rows$/ {printf "| %s | %s | %s |\n", $1, $4, $2}'
echo
echo '```'
echo "$out" | grep -v '^MAPE by source' | grep -v '% over [0-9]* rows$' | sed '/^$/d'
echo "$out" | tail -n 1
echo '```'
echo

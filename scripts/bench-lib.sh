# shellcheck shell=bash disable=SC2154 # $dir is set by the script that sources this file
# Helpers scripts/bench and scripts/bench-fleet share. Sourced from the repository's root after
# $dir (the scratch directory, BENCH_DIR) is set and created.
: "${dir:?scripts/bench-lib.sh: set dir (the scratch directory) before sourcing it}"

# peak runs a command as peak_sha does and prints "<wall seconds> <peak RSS MiB> <CPU seconds>"
# (its standard output is hashed and the hash dropped). A command that exits above 1 stops the
# (sub)shell with its code, its standard error said.
peak() {
  local out
  out=$(peak_sha "$@") || exit $?
  echo "${out% *}"
}

# peak_sha runs a command under /usr/bin/time, its standard output hashed from a pipe (sha256sum) rather
# than kept on disk (a 10M-binding JSON report is about 12 GB): prints wall seconds, peak RSS
# (MiB, the command's own: /usr/bin/time measures its child, not sha256sum), CPU seconds and the
# output's sha256. Exit 1 (a gate that failed) is a run that went through; a larger code stops.
peak_sha() {
  local sum code
  rm -f "$dir/code.txt"
  sum=$({ /usr/bin/time -f "%e %M %U %S" -o "$dir/time.txt" "$@" 2> "$dir/stderr.txt" || echo "$?" > "$dir/code.txt"; } | sha256sum | cut -d' ' -f1)
  code=$(cat "$dir/code.txt" 2> /dev/null || echo 0)
  if [ "$code" -gt 1 ]; then cat "$dir/stderr.txt" >&2; exit "$code"; fi
  # time writes "Command exited with non-zero status N" above the figures when the command fails
  # (conftest does when it flags a record): the figures are the last line.
  tail -n 1 "$dir/time.txt" | awk -v sum="$sum" '{ printf "%s %.0f %.2f %s\n", $1, $2 / 1024, $3 + $4, sum }'
}

# ratio prints a ÷ b to two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# gen_set writes a generated binding set of at least $1 bindings to $2 once (go run
# ./internal/bench/gen, the rest of the arguments its flags); $2/set.json, written last, marks a
# whole set, so a set a stopped run left half written is written again.
gen_set() {
  local n=$1 set_dir=$2
  shift 2
  if [ ! -f "$set_dir/set.json" ]; then
    rm -rf "$set_dir" "$set_dir.json.tmp"
    go run ./internal/bench/gen -n "$n" "$@" -out "$set_dir" > "$set_dir.json.tmp"
    mv "$set_dir.json.tmp" "$set_dir/set.json"
  fi
}

# set_count prints the number member $2 (Bindings, Records) of the set in $1.
set_count() { sed -E "s/.*\"$2\":([0-9]+).*/\1/" "$1/set.json"; }

# stock_opa installs stock OPA at go.mod's version into $dir/gobin once and prints its path.
stock_opa() {
  local version opa_bin
  version=$(go list -m -f '{{.Version}}' github.com/open-policy-agent/opa)
  opa_bin="$dir/gobin/opa"
  if ! { [ -x "$opa_bin" ] && "$opa_bin" version | grep -qx "Version: ${version#v}"; }; then
    GOBIN="$dir/gobin" GOFLAGS='' GOWORK=off go install "github.com/open-policy-agent/opa@$version" >&2
  fi
  echo "$opa_bin"
}

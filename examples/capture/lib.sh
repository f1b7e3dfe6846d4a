# Shared by the capture.sh scripts of the Go lanes; source it, do not run it.
#
#   capture_init "$@"     reads $1 (the observations directory) into out, sets here (the lane's
#                         directory), root (the repository) and bin (a temporary directory for the
#                         builds, removed on exit)
#   capture_reps LANE VERSION COMMAND...
#                         writes $out/LANE/VERSION/default.jsonl afresh with three repetitions, each
#                         a fresh process: COMMAND... -repetition N
#   capture_modfiles LANE VERSION...
#                         for each VERSION, builds the lane's directory against go.VERSION.mod into
#                         $bin/LANE-VERSION and captures it: capture_reps LANE VERSION with
#                         -fixtures $root/fixtures/sources

capture_init() {
  out=$1
  here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
  root=$(cd "$here/../../.." && pwd)
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
}

capture_reps() {
  local lane=$1 version=$2
  shift 2
  local file="$out/$lane/$version/default.jsonl"
  mkdir -p "$(dirname "$file")"
  : > "$file"
  for rep in 1 2 3; do
    "$@" -repetition "$rep" >> "$file"
  done
}

capture_modfiles() {
  local lane=$1 version
  shift
  for version in "$@"; do
    (cd "$here" && go build -modfile="go.$version.mod" -o "$bin/$lane-$version" .)
    capture_reps "$lane" "$version" "$bin/$lane-$version" -fixtures "$root/fixtures/sources"
  done
}

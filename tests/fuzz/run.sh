#!/usr/bin/env bash
# Runs each fuzz target (parser, config, server) for SECONDS (default 45): a CI
# smoke run by default, a long local run with a bigger number, e.g. 3600.
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# Seeds: our own test data and examples, plus ../shared/corpus when it is there,
# turned into each target's input shape by seeds.py in a temporary directory
# (never committed). A crash, a timeout or an out-of-memory input fails the run;
# the input is kept in tests/fuzz/artifacts/TARGET/ and the line to replay it is
# printed. Fixed crashes become regression tests in the normal test suites.
#
# cargo-fuzz needs nightly compiler flags: RUSTC_BOOTSTRAP=1 lets the stable
# compiler accept them. It is installed into target/tools when missing.
# FUZZ_SANITIZER=address builds with AddressSanitizer (slower; default: none, as
# the code is safe Rust and a panic is what we look for).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

secs=${1:-45}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parser config server)
sanitizer=${FUZZ_SANITIZER:-none}
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  export PATH="$root/target/tools/bin:$PATH"
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz into target/tools"
    # A debug build of the tool: it only drives cargo, and builds in half the time.
    cargo install --quiet --locked --debug cargo-fuzz --root "$root/target/tools"
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seeds=(syntax/test_data/*/*.conf tests/editors/fixtures/*.conf)
while IFS= read -r f; do seeds+=("$f"); done < <(find examples -name '*.conf' | sort)
if [ -d ../shared/corpus ]; then
  while IFS= read -r f; do seeds+=("$f"); done < <(find ../shared/corpus -type f -size -64k | sort)
else
  echo "fuzz: note: ../shared/corpus is absent; seeding from the project's own files only"
fi
if command -v python3 >/dev/null; then
  python3 tests/fuzz/seeds.py "$work/corpus" "${seeds[@]}"
else
  echo "fuzz: note: no python3; the raw files seed the parser and config targets only"
  mkdir -p "$work/corpus/parser" "$work/corpus/config" "$work/corpus/server"
  for f in "${seeds[@]}"; do
    n=$(cksum "$f" | cut -d' ' -f1)
    cp "$f" "$work/corpus/parser/$n"
    cp "$f" "$work/corpus/config/$n"
  done
fi

# Sixteen codegen units: a shorter build (CI) for slightly slower runs.
# Short runs keep a sample of the config target's seeds: each runs the engine's
# migration proofs (hundreds of evaluated requests), and libFuzzer reads every
# seed before its clock starts. Long runs keep them all.
if [ "$secs" -lt 300 ] && [ -d "$work/corpus/config" ]; then
  ls "$work/corpus/config" | sort | tail -n +61 | while IFS= read -r f; do rm "$work/corpus/config/$f"; done
fi

flags=(--fuzz-dir tests/fuzz -O --debug-assertions --sanitizer "$sanitizer" --codegen-units 16)
echo "fuzz: building ${targets[*]}"
if [ $# -eq 0 ]; then
  cargo fuzz build "${flags[@]}"
else
  for t in "${targets[@]}"; do cargo fuzz build "${flags[@]}" "$t"; done
fi

failed=()
for t in "${targets[@]}"; do
  art="$root/tests/fuzz/artifacts/$t"
  mkdir -p "$art"
  case $t in
    parser) max_len=65536 ;;
    config) max_len=8192 ;;
    *) max_len=16384 ;;
  esac
  echo "fuzz: $t for ${secs}s ($(ls "$work/corpus/$t" | wc -l) seeds)"
  # -timeout: one input running this long is a hang; -rss_limit_mb: a leak or a blow-up.
  if ! cargo fuzz run "${flags[@]}" "$t" "$work/corpus/$t" -- \
      -max_total_time="$secs" -max_len="$max_len" -timeout=60 -rss_limit_mb=4096 \
      -artifact_prefix="$art/" -print_final_stats=1 >"$work/$t.log" 2>&1; then
    failed+=("$t")
    tail -n 60 "$work/$t.log"
    echo "fuzz: $t FAILED; inputs kept in $art:"
    ls -1 "$art"
    echo "fuzz: replay one with: RUSTC_BOOTSTRAP=1 cargo fuzz run ${flags[*]} $t <file>"
  else
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$t.log" | sed "s/^/fuzz: $t: /"
    rmdir "$art" 2>/dev/null || true
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: no crash in ${targets[*]} (${secs}s each)"

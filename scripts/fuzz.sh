#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan, in build-fuzz) and runs each for a
# number of inputs, one after the other, on one core. Each starts from its seed corpus
# fuzz/corpus/TARGET/ (read only) and from build-fuzz/corpus/TARGET/, where it keeps the new inputs
# it finds (so a second run goes on from there). A crash, a leak, a hang (-timeout) or a UBSan
# report stops that target and is saved as fuzz/crashes/TARGET-crash-<sha1> (or leak-, timeout-,
# oom-): turn each into a regression test in tests/ before fixing it.
#   scripts/fuzz.sh [--runs N] [--seconds S] [--seed N] [--build DIR] [TARGET...]
#     --runs N      inputs per target (default 1000000)
#     --seconds S   stop a target after S seconds even if it has not run N inputs (default: no limit)
#     --seed N      libFuzzer's random seed (default: a new one each run; CI fixes it)
#     --build DIR   build directory (default build-fuzz; CI uses build-asan, configured the same)
#     TARGET        fuzz_sfen, fuzz_web_api, ... (default: every fuzz/fuzz_*.cpp)
#   POPPY_JOBS      parallel compile jobs (default 2)
# Prints the inputs run per target; exits 1 when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=1000000
SECONDS_LIMIT=0
SEED=0
BUILD=build-fuzz
targets=()
while (($#)); do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --seconds) SECONDS_LIMIT="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "fuzz: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for f in fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DPOPPY_WITH_TORCH=OFF \
  -DPOPPY_FUZZ=ON -DPOPPY_SANITIZE=address,undefined > /dev/null
cmake --build "$BUILD" -j "${POPPY_JOBS:-2}" --target "${targets[@]}"

export ASAN_OPTIONS="detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p fuzz/crashes
crashed=()
summary=()
for t in "${targets[@]}"; do
  seeds="fuzz/corpus/$t"
  work="$BUILD/corpus/$t"
  mkdir -p "$work"
  [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds" >&2; exit 2; }
  log="$BUILD/$t.log"
  start=$SECONDS
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: a runaway allocation is a bug.
  status=0
  "$BUILD/fuzz/$t" -runs="$RUNS" -max_total_time="$SECONDS_LIMIT" -seed="$SEED" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="fuzz/crashes/$t-" "$work" "$seeds" > "$log" 2>&1 || status=$?
  inputs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  line="$t: ${inputs:-?} inputs in $((SECONDS - start)) s"
  if ((status != 0)); then
    crashed+=("$t")
    line+=", CRASHED (exit $status): $(sed -n 's/.*Test unit written to //p' "$log" | head -1)"
    grep -m1 -E '^(==[0-9]+==ERROR|.*runtime error|fuzz check failed|terminate called)' "$log" >&2 || true
  fi
  echo "fuzz: $line"
  summary+=("$line")
done

echo "fuzz: summary (logs in $BUILD/TARGET.log)"
printf '  %s\n' "${summary[@]}"
if ((${#crashed[@]})); then
  echo "fuzz: crashes in ${crashed[*]}: reproduce with $BUILD/fuzz/TARGET fuzz/crashes/FILE," \
       "then make each a regression test in tests/ and fix it" >&2
  exit 1
fi

#!/usr/bin/env bash
# Builds the LibTorch-free libraries (game, mcts, selfplay, play, report, common) and their tests
# under sanitizers, with clang in Debug -O1 (cmake/sanitizers.cmake), and runs them with CTest:
#   asan  build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer), every test
#         that needs neither LibTorch nor the poppy command (tests/CMakeLists.txt); with clang
#         also the fuzz targets, which CI then runs briefly (scripts/fuzz.sh --build build-asan)
#   tsan  build-tsan: ThreadSanitizer, the tests of the code that runs threads (below)
# Any report fails its test: UBSan is built with -fno-sanitize-recover, ASan and TSan stop the
# program at the first report (halt_on_error).
#   scripts/sanitize.sh [asan] [tsan]     (default: both)
#   POPPY_JOBS          parallel compile and test jobs (default 2)
#   POPPY_SANITIZE_CXX  the compiler (default clang++; g++ works too, without the fuzz targets)
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS="${POPPY_JOBS:-2}"
COMPILER="${POPPY_SANITIZE_CXX:-clang++}"
# The code with threads: the USI engine's search thread (play/usi_engine), the match runner's
# engine threads (selfplay/match), the self-play pool (selfplay/selfplay_pool), the analyzer's
# stop flag, and the web API that `poppy serve` calls from one thread per request.
TSAN_TESTS="test_usi;test_match;test_analyzer;test_selfplay;test_serve"

modes=("$@")
if ((${#modes[@]} == 0)); then modes=(asan tsan); fi

# detect_stack_use_after_return is left off: it triples the time of the search-heavy tests.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:strict_string_checks=1"
# Leaks of other libraries' process-lifetime caches (fontconfig's, via librsvg) are suppressed by
# name in scripts/lsan.supp; Poppy's own code has no entry there.
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"

for mode in "${modes[@]}"; do
  case "$mode" in
    asan) dir=build-asan sanitize=address,undefined tests="" fuzz=$([[ "$COMPILER" == *clang* ]] && echo ON || echo OFF) ;;
    tsan) dir=build-tsan sanitize=thread tests="$TSAN_TESTS" fuzz=OFF ;;
    *) echo "sanitize: unknown mode '$mode' (asan or tsan)" >&2; exit 2 ;;
  esac
  start=$SECONDS
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$COMPILER" \
    -DPOPPY_WITH_TORCH=OFF -DPOPPY_SANITIZE="$sanitize" -DPOPPY_TESTS="$tests" -DPOPPY_FUZZ="$fuzz" > /dev/null
  cmake --build "$dir" -j "$JOBS"
  built=$SECONDS
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
  echo "sanitize: $mode passed (build $((built - start)) s, tests $((SECONDS - built)) s)"
done

#!/usr/bin/env bash
# Sets Poppy up on a Debian machine: installs the Debian packages it needs (only those missing,
# so a second run is quick) and builds build/poppy and the tests in Release mode.
#   scripts/setup.sh            everything: training, playing, the tests and their references
#   scripts/setup.sh --play     what training and playing need: no tests, test references
#                               (Fairy-Stockfish, HaChu, npm packages, Chromium), sanitizers or MPI
#   scripts/setup.sh --dry-run  say which packages and build it would install and run, and stop
#   POPPY_JOBS   parallel compile jobs (default 2: LibTorch code needs ~2 GiB per job)
#   POPPY_BUILD  build directory (default build)
set -euo pipefail
cd "$(dirname "$0")/.."

play_only=0
dry_run=0
for arg in "$@"; do
  case "$arg" in
    --play) play_only=1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option '$arg' (--play, --dry-run or --help)" >&2; exit 2 ;;
  esac
done

# What the poppy command needs to build and run: training, play, serve, study.
PLAY_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libyaml-cpp-dev   # variant and run configs
  libcli11-dev      # the poppy command line
  libtorch-dev      # the network and trainer (CPU build 1.13)
  libopenblas-dev   # fast matrix products for LibTorch on the CPU
  libeigen3-dev     # the network's forward pass without LibTorch, for small batches (nn/eigen_*)
  libzstd-dev       # replay chunk compression
  libxxhash-dev     # replay chunk checksums
  zlib1g-dev        # CRC-32 of model files and checkpoints
  nlohmann-json3-dev  # game records, run state, metrics, opening books
  libcpp-httplib-dev  # the local web server of `poppy serve`
  librsvg2-dev      # PNG pictures of the SVG drawings (report/svg_to_png.cpp)
  fonts-dejavu-core fonts-ipafont-mincho  # the fonts of those pictures: Latin, and the pieces' kanji
)
# What the tests, their independent references and the other checks add.
TEST_PACKAGES=(
  libgtest-dev      # unit tests (GoogleTest through CTest)
  fairy-stockfish   # independent engine the perft tests compare against
  hachu             # H.G. Muller's chu engine: the XBoard client's tests play it (play/engines/xboard_client.h)
  libosl-dev libboost-dev  # OpenShogiLib: its USI client plays build/poppy-usi-shogi, its rules check the moves (tests/support/osl_usi_game.cpp)
  chromium          # headless browser for the end-to-end test of the web page
  nodejs npm        # runs the npm references of tests/reference: lishogi's shogiops, ffish (yari), tsshogi (KIF, CSA)
  clang libclang-rt-dev  # sanitizer builds and libFuzzer (scripts/sanitize.sh, scripts/fuzz.sh)
  libopenmpi-dev openmpi-bin  # `poppy train --distributed` (Open MPI: mpirun, and srun under Slurm)
  python3-torch python3-onnx  # `poppy model export` (scripts/poppy_model.py) and its test, which runs the exported network
  python3-numpy python3-zstandard python3-xxhash  # scripts/poppy_replay.py, the Python reader of replay chunks, and its test
)
PACKAGES=("${PLAY_PACKAGES[@]}")
if ((!play_only)); then PACKAGES+=("${TEST_PACKAGES[@]}"); fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  # NodeSource's nodejs package carries npm itself and conflicts with Debian's npm.
  [ "$p" = npm ] && command -v npm > /dev/null && continue
  missing+=("$p")
done
BUILD="${POPPY_BUILD:-build}"
CMAKE_ARGS=(-S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release)
if ((play_only)); then CMAKE_ARGS+=(-DPOPPY_BUILD_TESTS=OFF); fi
if ((dry_run)); then
  echo "setup: packages: ${PACKAGES[*]}"
  echo "setup: would install: ${missing[*]:-(nothing: every package is here)}"
  ((play_only)) || echo "setup: would install the npm references in tests/reference (shogiops, ffish, tsshogi)"
  echo "setup: would run: cmake ${CMAKE_ARGS[*]} && cmake --build $BUILD -j ${POPPY_JOBS:-2}"
  exit 0
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# shogiops, pinned by tests/reference/shogiops/package-lock.json, for tests/test_shogiops_perft.cpp.
if ((!play_only)) && [ ! -d tests/reference/shogiops/node_modules ]; then
  echo "setup: installing shogiops (npm) in tests/reference/shogiops"
  (cd tests/reference/shogiops && npm ci --no-audit --no-fund)
fi
# ffish (Fairy-Stockfish as WebAssembly), pinned by tests/reference/ffish/package-lock.json: the
# yari shogi reference of tests/test_yari.cpp (the Debian Fairy-Stockfish 11.1 has no custom pieces).
if ((!play_only)) && [ ! -d tests/reference/ffish/node_modules ]; then
  echo "setup: installing ffish (npm) in tests/reference/ffish"
  (cd tests/reference/ffish && npm ci --no-audit --no-fund)
fi

# tsshogi (ShogiHome's game record library), pinned by tests/reference/tsshogi/package-lock.json:
# the independent KIF and CSA reader and writer of tests/test_game_files.cpp.
if ((!play_only)) && [ ! -d tests/reference/tsshogi/node_modules ]; then
  echo "setup: installing tsshogi (npm) in tests/reference/tsshogi"
  (cd tests/reference/tsshogi && npm ci --no-audit --no-fund)
fi

cmake "${CMAKE_ARGS[@]}" > /dev/null
cmake --build "$BUILD" -j "${POPPY_JOBS:-2}"
echo "setup: built $BUILD/poppy"

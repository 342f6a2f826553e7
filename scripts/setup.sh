#!/usr/bin/env bash
# Sets Poppy up on a Debian machine: installs the Debian packages it needs (only those missing,
# so a second run is quick) and builds build/poppy and the tests in Release mode.
#   POPPY_JOBS   parallel compile jobs (default 2: LibTorch code needs ~2 GiB per job)
#   POPPY_BUILD  build directory (default build)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libyaml-cpp-dev   # variant and run configs
  libcli11-dev      # the poppy command line
  libgtest-dev      # unit tests (GoogleTest through CTest)
  fairy-stockfish   # independent engine the perft tests compare against
  hachu             # H.G. Muller's chu engine: the XBoard client's tests play it (play/xboard_client.h)
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
  chromium          # headless browser for the end-to-end test of the web page
  nodejs npm        # runs the npm references of tests/reference: lishogi's shogiops, ffish (yari), tsshogi (KIF, CSA)
  clang libclang-rt-dev  # sanitizer builds and libFuzzer (scripts/sanitize.sh, scripts/fuzz.sh)
  libopenmpi-dev openmpi-bin  # `poppy train --distributed` (Open MPI: mpirun, and srun under Slurm)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  # NodeSource's nodejs package carries npm itself and conflicts with Debian's npm.
  [ "$p" = npm ] && command -v npm > /dev/null && continue
  missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# shogiops, pinned by tests/reference/shogiops/package-lock.json, for tests/test_shogiops_perft.cpp.
if [ ! -d tests/reference/shogiops/node_modules ]; then
  echo "setup: installing shogiops (npm) in tests/reference/shogiops"
  (cd tests/reference/shogiops && npm ci --no-audit --no-fund)
fi
# ffish (Fairy-Stockfish as WebAssembly), pinned by tests/reference/ffish/package-lock.json: the
# yari shogi reference of tests/test_yari.cpp (the Debian Fairy-Stockfish 11.1 has no custom pieces).
if [ ! -d tests/reference/ffish/node_modules ]; then
  echo "setup: installing ffish (npm) in tests/reference/ffish"
  (cd tests/reference/ffish && npm ci --no-audit --no-fund)
fi

# tsshogi (ShogiHome's game record library), pinned by tests/reference/tsshogi/package-lock.json:
# the independent KIF and CSA reader and writer of tests/test_game_files.cpp.
if [ ! -d tests/reference/tsshogi/node_modules ]; then
  echo "setup: installing tsshogi (npm) in tests/reference/tsshogi"
  (cd tests/reference/tsshogi && npm ci --no-audit --no-fund)
fi

BUILD="${POPPY_BUILD:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD" -j "${POPPY_JOBS:-2}"
echo "setup: built $BUILD/poppy"

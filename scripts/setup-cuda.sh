#!/usr/bin/env bash
# Builds Poppy against a CUDA LibTorch into build-cuda/ (docs/commands/train.md "Training on a GPU").
#
#   scripts/setup-cuda.sh download  on a Debian 12 machine with a network: fetches the .deb files of
#                                   the libraries Poppy builds with into cuda-deps/, for a GPU
#                                   machine that has no network (copy the clone, cuda-deps/ too)
#   scripts/setup-cuda.sh [build]   builds build-cuda/poppy and the tests
#   scripts/setup-cuda.sh test      builds, then runs the test suite (the `device: cuda` tests run
#                                   when a GPU is visible)
#
# LibTorch: POPPY_LIBTORCH, the folder of an unzipped LibTorch (it holds share/cmake/Torch) or any
# folder CMake finds TorchConfig.cmake under; unset, python3's PyTorch
# (torch.utils.cmake_prefix_path), which on a GPU machine is usually a CUDA build.
# Libraries: the Debian packages scripts/setup.sh installs, where they are installed; otherwise the
# .deb files in cuda-deps/, unpacked (not installed) into build-cuda/deps. Nothing is downloaded
# on the GPU machine.
#   POPPY_JOBS    parallel compile jobs (default: the number of cores)
#   POPPY_TARGET  `build` makes only this target (poppy: 57 s with 16 jobs on the H100 machine,
#                 against 77-94 s for everything); `test` always builds everything
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=build-cuda
DEBS=cuda-deps
# Development packages and the run-time libraries they point at (the -dev packages' .so links
# name exact file versions, so the matching library comes along rather than the machine's own).
PACKAGES=(libyaml-cpp-dev libyaml-cpp0.7 libcli11-dev libgtest-dev libzstd-dev libzstd1 libxxhash-dev libxxhash0
          zlib1g-dev zlib1g nlohmann-json3-dev libcpp-httplib-dev libcpp-httplib0.11 libbrotli1 libbrotli-dev libssl3 libssl-dev
          libeigen3-dev pkgconf-bin libpkgconf3
          fairy-stockfish)  # the independent engine of the perft and match tests
DEV_PACKAGES=(libyaml-cpp-dev libcli11-dev libgtest-dev libzstd-dev libxxhash-dev zlib1g-dev nlohmann-json3-dev
              libcpp-httplib-dev libbrotli-dev libssl-dev libeigen3-dev)

say() { echo "setup-cuda: $*"; }
die() { echo "setup-cuda: $*" >&2; exit 1; }

download() {
  command -v apt-get > /dev/null || die "download needs apt-get (a Debian 12 machine with a network)"
  mkdir -p "$DEBS"
  (cd "$DEBS" && apt-get download "${PACKAGES[@]}")
  say "downloaded $(ls "$DEBS"/*.deb | wc -l) packages into $DEBS/; copy the clone with it to the GPU machine"
}

# Where find_package() looks for LibTorch.
libtorch_prefix() {
  if [ -n "${POPPY_LIBTORCH:-}" ]; then
    [ -d "$POPPY_LIBTORCH" ] || die "POPPY_LIBTORCH=$POPPY_LIBTORCH is not a folder"
    echo "$POPPY_LIBTORCH"
    return
  fi
  python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2> /dev/null ||
    die "no LibTorch: set POPPY_LIBTORCH to an unzipped LibTorch, or install PyTorch for python3"
}

# Folders of the shared libraries a pip-installed CUDA PyTorch loads (nvidia-* wheels): the linker
# must see them to check libtorch_cuda.so's own dependencies.
pip_cuda_library_dirs() {
  local site
  site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2> /dev/null) || return 0
  [ -d "$site/nvidia" ] || return 0
  find "$site/nvidia" -name 'lib*.so*' -printf '%h\n' | sort -u
}

# Prints the CMake prefix of the libraries: empty when the system has them.
libraries_prefix() {
  local missing=0
  for p in "${DEV_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing=1
  done
  ((missing)) || return 0
  ls "$DEBS"/*.deb > /dev/null 2>&1 ||
    die "the build libraries are neither installed nor in $DEBS/: run 'scripts/setup-cuda.sh download' on a Debian 12 machine with a network (or install: ${DEV_PACKAGES[*]})"
  local deps="$PWD/$BUILD/deps"
  if [ ! -f "$deps/.unpacked" ]; then
    mkdir -p "$deps"
    for f in "$DEBS"/*.deb; do dpkg-deb -x "$f" "$deps"; done
    touch "$deps/.unpacked"
  fi
  echo "$deps"
}

build() {
  local torch deps jobs
  torch=$(libtorch_prefix)
  deps=$(libraries_prefix)
  jobs=${POPPY_JOBS:-$(nproc)}
  say "LibTorch from $torch"
  local prefix="$torch" linkdirs="" args=()
  if [ -n "$deps" ]; then
    say "libraries from $deps (unpacked from $DEBS/)"
    prefix="$torch;$deps/usr"
    linkdirs="$deps/usr/lib/x86_64-linux-gnu"
    export PKG_CONFIG_LIBDIR="$deps/usr/lib/x86_64-linux-gnu/pkgconfig:$deps/usr/share/pkgconfig"
    export PKG_CONFIG_SYSROOT_DIR="$deps"
    # pkgconf drops -I/usr/include and -L/usr/lib as the system's own: here they are the sysroot's.
    export PKG_CONFIG_SYSTEM_INCLUDE_PATH=/nonexistent PKG_CONFIG_SYSTEM_LIBRARY_PATH=/nonexistent
    export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    command -v pkg-config > /dev/null || args+=(-DPKG_CONFIG_EXECUTABLE="$deps/usr/bin/pkgconf")
  fi
  # PNG pictures need librsvg, which cuda-deps/ does not carry (its dependencies are many): with
  # it missing, this build draws SVG only and says so when asked for a PNG.
  if pkg-config --exists librsvg-2.0 cairo 2> /dev/null; then args+=(-DPOPPY_PNG=ON); else
    say "no librsvg2-dev: building without PNG pictures (SVG only)"
    args+=(-DPOPPY_PNG=OFF)
  fi
  for d in $(pip_cuda_library_dirs); do linkdirs="$linkdirs${linkdirs:+:}$d"; done
  local ldflags=""
  [ -n "$linkdirs" ] && ldflags="-Wl,-rpath-link,$linkdirs"
  # Hopper and newer by default; TORCH_CUDA_ARCH_LIST overrides (LibTorch's CMake reads it).
  export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"
  local generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  cmake -S . -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" -DCMAKE_MODULE_LINKER_FLAGS="$ldflags" \
    -DPOPPY_TESTS_MAY_LACK_NODE_AND_CHROMIUM=ON "${args[@]}"
  cmake --build "$BUILD" -j "$jobs" ${POPPY_TARGET:+--target "$POPPY_TARGET"}
  say "built ${POPPY_TARGET:-everything} in $BUILD/"
}

run_tests() {
  POPPY_TARGET="" build  # the tests need everything
  # Tests that need programs a GPU machine's image may lack: those that find node or chromium
  # missing count as skipped (POPPY_TESTS_MAY_LACK_NODE_AND_CHROMIUM, set by build), and are said.
  local skip=()
  command -v node > /dev/null ||
    say "node is missing: the shogiops, tsshogi and ffish comparisons will be skipped"
  command -v chromium > /dev/null || say "chromium is missing: the tests of the web page in a browser will be skipped"
  if [ ! -x /usr/games/fairy-stockfish ]; then
    say "fairy-stockfish is missing at /usr/games: leaving out the tests that compare with it"
    skip+=("Fairy" "Stockfish")
  fi
  local exclude=()
  ((${#skip[@]})) && exclude=(-E "$(IFS='|'; echo "${skip[*]}")")
  ctest --test-dir "$BUILD" --output-on-failure -j "${POPPY_JOBS:-$(nproc)}" "${exclude[@]}"
}

case "${1:-build}" in
  download) download ;;
  build) build ;;
  test) run_tests ;;
  *) die "unknown command '$1' (use download, build or test)" ;;
esac

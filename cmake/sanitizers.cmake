# POPPY_SANITIZE: build every target of this configuration under sanitizers, e.g.
#   -DPOPPY_SANITIZE=address,undefined   (ASan + UBSan; scripts/sanitize.sh: build-asan)
#   -DPOPPY_SANITIZE=thread              (TSan; scripts/sanitize.sh: build-tsan)
# and POPPY_FUZZ=ON adds libFuzzer's coverage instrumentation (the fuzz targets of fuzz/, clang).
# Meant for POPPY_WITH_TORCH=OFF builds: LibTorch is not instrumented (TSan reports races inside
# it that are not there, and ASan slows the trainer tests past their time limits).
set(POPPY_SANITIZE "" CACHE STRING "Sanitizers for every target: address,undefined or thread (empty: none)")

if(POPPY_SANITIZE)
  string(REPLACE "," ";" _poppy_sanitizers "${POPPY_SANITIZE}")
  foreach(_s ${_poppy_sanitizers})
    if(NOT _s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "POPPY_SANITIZE: unknown sanitizer '${_s}' (use address, undefined or thread)")
    endif()
  endforeach()
  if("thread" IN_LIST _poppy_sanitizers AND "address" IN_LIST _poppy_sanitizers)
    message(FATAL_ERROR "POPPY_SANITIZE: thread and address cannot be combined; build them apart")
  endif()
  if(POPPY_WITH_TORCH)
    message(WARNING "POPPY_SANITIZE with POPPY_WITH_TORCH=ON: LibTorch itself is not instrumented")
  endif()

  # Frame pointers give whole stacks in reports at little cost. -O1 keeps the tests quick (the
  # sanitizers' own advice) whatever the build type. The reports need file, line and function
  # (inlined ones too), which line tables alone give: with clang, -gline-tables-only (it comes
  # after the build type's -g and wins) instead of full debug information, whose types and
  # variables made the compile and the links of the sanitized tests slower.
  add_compile_options(-fsanitize=${POPPY_SANITIZE} -fno-omit-frame-pointer -O1)
  # The tests' heaviest random-game checks play fewer games here (tests/support/sanitized.h).
  add_compile_definitions(POPPY_SANITIZED)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_compile_options(-gline-tables-only)
  else()
    add_compile_options(-g)
  endif()
  add_link_options(-fsanitize=${POPPY_SANITIZE})
  if("undefined" IN_LIST _poppy_sanitizers)
    # By default UBSan prints and carries on, and the test passes: make each finding fatal.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

# Set here, before the libraries are defined, so that they are instrumented too: libFuzzer steers
# by the coverage of the code under test, not of the small fuzz target.
option(POPPY_FUZZ "Build the libFuzzer targets of fuzz/ too (clang, POPPY_WITH_TORCH=OFF)" OFF)
if(POPPY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "POPPY_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(POPPY_WITH_TORCH)
    message(FATAL_ERROR "POPPY_FUZZ needs -DPOPPY_WITH_TORCH=OFF (the fuzzed code has no LibTorch)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# The rest of a POPPY_WITH_TORCH=OFF configuration, included by the top-level CMakeLists.txt
# once the LibTorch-free libraries (game, mcts, selfplay, play, report, common) are defined.
# Sanitizer builds and fuzz targets use it: they build in a few minutes on two cores because
# nothing here includes a LibTorch header.

enable_testing()
add_subdirectory(tests)
# POPPY_FUZZ (cmake/sanitizers.cmake): the libFuzzer targets of fuzz/ too. They share the
# sanitized libraries with the tests, so CI builds those once for both.
if(POPPY_FUZZ)
  add_subdirectory(fuzz)
endif()

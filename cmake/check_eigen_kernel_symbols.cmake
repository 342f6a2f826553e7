# Run by CTest (eigen_kernel_symbols_ISA): the object of one instruction set's copy of
# nn/eigen_forward.cpp must define no external symbol outside its own Eigen namespace
# (poppy_eigen_ISA) but its forward function. A weak symbol shared with another copy, say an
# inline function of Eigen or of the standard library, would be merged by the linker, and the
# copy that survives could use instructions the running CPU lacks (or leave the wide copy slow).
#   cmake -DISA=avx2 -DOBJECT=path/eigen_forward.cpp.o -DNM=nm -P check_eigen_kernel_symbols.cmake
# ENTRY (a regular expression; default the forward function's mangled name) names the one
# function the object may export: nn/int8_conv_vnni.cpp's is convolveInt8Vnni.
if(NOT DEFINED ENTRY)
  set(ENTRY "eigen_kernels[0-9]+forward")
endif()
execute_process(COMMAND ${NM} --defined-only --extern-only ${OBJECT} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${OBJECT}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(forward 0)
foreach(line ${lines})
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" name "${line}")
  if(name STREQUAL "" OR name STREQUAL "DW.ref.__gxx_personality_v0")
    continue()
  elseif(name MATCHES "${ENTRY}")
    math(EXPR forward "${forward} + 1")
  elseif(NOT name MATCHES "poppy_eigen_${ISA}")
    message(FATAL_ERROR "${OBJECT} defines ${line}: outside the namespace poppy_eigen_${ISA}, the linker may merge it with another instruction set's copy")
  endif()
endforeach()
if(NOT forward EQUAL 1)
  message(FATAL_ERROR "${OBJECT} defines ${forward} functions matching ${ENTRY}, expected 1")
endif()
message(STATUS "${ISA}: every external symbol is its own")

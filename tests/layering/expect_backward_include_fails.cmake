# ctest -P script: builds the two layering probes in BUILD_DIR. The forward include must
# compile; the backward one must fail, for the one reason that its header is not found.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target fsmove_forward_include_probe
                RESULT_VARIABLE forward_result OUTPUT_VARIABLE forward_output ERROR_VARIABLE forward_output)
if(NOT forward_result EQUAL 0)
  message(FATAL_ERROR "the forward include did not compile:\n${forward_output}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target fsmove_backward_include_probe
                RESULT_VARIABLE backward_result OUTPUT_VARIABLE backward_output ERROR_VARIABLE backward_output)
if(backward_result EQUAL 0)
  message(FATAL_ERROR "a stage included the header of a stage above it, and it compiled")
endif()
# g++: "fsmove/analysis/analyzer.h: No such file";
# clang: "'fsmove/analysis/analyzer.h' file not found".
if(NOT backward_output MATCHES "fsmove/analysis/analyzer.h(: No such file|' file not found)")
  message(FATAL_ERROR "the backward include failed for another reason:\n${backward_output}")
endif()
message(STATUS "the backward include failed: its header is not visible to the stage below")

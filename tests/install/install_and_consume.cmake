# cmake -P script run by ctest (see CMakeLists.txt next to it).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${DPX_BINARY_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${DPX_SOURCE_DIR}/examples/consumer -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINK_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)

# Every component's exported target must resolve (all external dependencies found).
run(${CMAKE_COMMAND} -S ${DPX_SOURCE_DIR}/examples/consumer -B ${WORK_DIR}/build-all
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINK_FLAGS}"
    "-DDPX_CONSUMER_COMPONENT=${ALL_COMPONENTS}")

# An unknown component must make find_package fail with a clear message.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${DPX_SOURCE_DIR}/examples/consumer
                        -B ${WORK_DIR}/build-bad -DCMAKE_PREFIX_PATH=${prefix}
                        -DDPX_CONSUMER_COMPONENT=no_such_component
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(dpx COMPONENTS no_such_component) unexpectedly succeeded")
endif()
if(NOT "${out}${err}" MATCHES "unknown component 'no_such_component'")
  message(FATAL_ERROR "unexpected failure message:\n${out}\n${err}")
endif()
message(STATUS "install + consumer OK; unknown component rejected cleanly")

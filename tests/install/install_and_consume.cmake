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
# An outside project with its own experiment driver and preset, run by the installed harness:
# its rate check must pass and the report must be written.
run(${CMAKE_COMMAND} -S ${DPX_SOURCE_DIR}/examples/custom_driver -B ${WORK_DIR}/build-driver
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINK_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build-driver)
execute_process(COMMAND ${CMAKE_COMMAND} -E env DPX_PLOT_SCRIPT=${prefix}/share/dpx/dpx_plot.py
                        ${WORK_DIR}/build-driver/range_mean_experiments
                        ${DPX_SOURCE_DIR}/examples/custom_driver/experiments/range_mean/preset.toml
                        ${WORK_DIR}/range_mean
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "range_mean: 2/2 rate checks passed")
  message(FATAL_ERROR "custom driver example failed (${rc}):\n${out}\n${err}")
endif()
foreach(f tidy.csv summary.csv rates.csv report.md manifest.json)
  if(NOT EXISTS ${WORK_DIR}/range_mean/${f})
    message(FATAL_ERROR "custom driver example wrote no ${f}")
  endif()
endforeach()

# The pkg-config files: compile and link the consumer with pkg-config's flags alone.
find_program(PKG_CONFIG_EXE pkg-config)
if(PKG_CONFIG_EXE)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  foreach(module dpx-mechanisms dpx)
    execute_process(COMMAND ${PKG_CONFIG_EXE} --cflags --libs ${module}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "pkg-config ${module} failed:\n${err}")
    endif()
    separate_arguments(flags UNIX_COMMAND "${flags}")
    separate_arguments(link_flags UNIX_COMMAND "${CONSUMER_LINK_FLAGS}")
    run(${CXX_COMPILER} -std=c++20 ${DPX_SOURCE_DIR}/examples/consumer/main.cpp ${flags}
        ${link_flags} -o ${WORK_DIR}/consumer-pc-${module})
    # pkg-config gives no run path: a shared dpx is found through LD_LIBRARY_PATH.
    run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/${LIBDIR} ${WORK_DIR}/consumer-pc-${module})
  endforeach()
else()
  message(FATAL_ERROR "pkg-config not found (Debian: pkgconf)")
endif()

# A consumer without FFTW must fail when it configures, naming FFTW (FindDpxFFTW3.cmake is
# installed with the package): hide the library and header directories from find_* (OpenSSL,
# which dpx::core needs and which lives there too, is given by its cache variables).
execute_process(COMMAND ${CMAKE_COMMAND} -S ${DPX_SOURCE_DIR}/examples/consumer
                        -B ${WORK_DIR}/build-nofftw -DCMAKE_PREFIX_PATH=${prefix}
                        -DDPX_CONSUMER_COMPONENT=accounting
                        "-DCMAKE_IGNORE_PATH=${FFTW_LIBRARY_DIR};${FFTW_INCLUDE_DIR}"
                        -DOPENSSL_CRYPTO_LIBRARY=${OPENSSL_CRYPTO_LIBRARY}
                        -DOPENSSL_INCLUDE_DIR=${OPENSSL_INCLUDE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(dpx COMPONENTS accounting) succeeded without FFTW")
endif()
if(NOT "${out}${err}" MATCHES "dpx needs FFTW3")
  message(FATAL_ERROR "unexpected failure message without FFTW:\n${out}\n${err}")
endif()
message(STATUS "install + consumer OK; unknown component rejected cleanly; custom driver, "
               "pkg-config and missing-FFTW checks OK")

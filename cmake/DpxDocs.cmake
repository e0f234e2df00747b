# `docs` target: the API reference built with Doxygen (Debian: doxygen) from the public headers,
# into <build>/docs/api/html. Optional: without doxygen there is no target (and no test).
find_package(Doxygen QUIET)
find_package(Python3 QUIET COMPONENTS Interpreter)
if(NOT DOXYGEN_FOUND OR NOT Python3_Interpreter_FOUND)
  return()
endif()
set(DPX_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs/api)
set(DPX_DOCS_INPUT ${PROJECT_SOURCE_DIR}/docs/api.md)
set(DPX_DOCS_STRIP ${PROJECT_SOURCE_DIR})
set(DPX_DOCS_STRIP_INC "")
foreach(c IN LISTS DPX_ALL_COMPONENTS)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/libs/${c}/include)
    string(APPEND DPX_DOCS_INPUT " ${PROJECT_SOURCE_DIR}/libs/${c}/include")
    string(APPEND DPX_DOCS_STRIP_INC " ${PROJECT_SOURCE_DIR}/libs/${c}/include")
  endif()
endforeach()
set(DPX_DOXYGEN_WARN_AS_ERROR NO)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${PROJECT_BINARY_DIR}/docs/Doxyfile @ONLY)
# The test's copy fails on the first warning (FAIL_ON_WARNINGS: all warnings listed, exit 1).
set(DPX_DOXYGEN_WARN_AS_ERROR FAIL_ON_WARNINGS)
set(DPX_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs/api-test)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${PROJECT_BINARY_DIR}/docs/Doxyfile.test @ONLY)
add_custom_target(docs
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/docs/api
  COMMAND Doxygen::doxygen ${PROJECT_BINARY_DIR}/docs/Doxyfile
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "API reference (Doxygen): ${PROJECT_BINARY_DIR}/docs/api/html/index.html"
  VERBATIM)
if(DPX_BUILD_TESTS)
  add_test(NAME docs_api
    COMMAND ${CMAKE_COMMAND} -E chdir ${PROJECT_SOURCE_DIR}
            ${CMAKE_COMMAND} -E env ${DOXYGEN_EXECUTABLE} ${PROJECT_BINARY_DIR}/docs/Doxyfile.test)
  set_tests_properties(docs_api PROPERTIES LABELS "unit;docs" TIMEOUT 600)
endif()

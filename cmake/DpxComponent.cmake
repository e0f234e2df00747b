# dpx_add_component(<name> [HEADER_ONLY] [SOURCES ...] [DEPS <dpx components>] [EXTERNAL <targets>]
#                   [PRIVATE_EXTERNAL <targets>] [FIND <find_dependency lines for consumers>])
# Creates target dpx_<name>, alias dpx::<name>, installs it under export set dpx-<name>-targets
# and records its dependencies for dpxConfig.cmake (registration order = dependency order).
function(dpx_add_component name)
  cmake_parse_arguments(A "HEADER_ONLY" "" "SOURCES;DEPS;EXTERNAL;PRIVATE_EXTERNAL;FIND" ${ARGN})
  if(A_HEADER_ONLY)
    add_library(dpx_${name} INTERFACE)
    set(scope INTERFACE)
  else()
    add_library(dpx_${name} ${A_SOURCES})
    set(scope PUBLIC)
    set_target_properties(dpx_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    # DPX_UNITY_BUILD: two batches per library (top-level CMakeLists.txt says why).
    list(LENGTH A_SOURCES n_sources)
    if(DPX_UNITY_BUILD AND n_sources GREATER 3)
      math(EXPR batch "(${n_sources} + 1) / 2")
      set_target_properties(dpx_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
    endif()
    target_link_libraries(dpx_${name} PRIVATE $<BUILD_INTERFACE:dpx_build_flags>)
  endif()
  add_library(dpx::${name} ALIAS dpx_${name})
  set_target_properties(dpx_${name} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME dpx_${name})
  target_compile_features(dpx_${name} ${scope} cxx_std_20)
  file(GLOB_RECURSE hdrs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/*.hpp)
  target_sources(dpx_${name} ${scope} FILE_SET HEADERS
                 BASE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/include FILES ${hdrs})
  list(TRANSFORM A_DEPS PREPEND dpx:: OUTPUT_VARIABLE deps)
  target_link_libraries(dpx_${name} ${scope} ${deps} ${A_EXTERNAL})
  if(A_PRIVATE_EXTERNAL)
    target_link_libraries(dpx_${name} PRIVATE ${A_PRIVATE_EXTERNAL})
  endif()
  if(DPX_INSTALL)
    install(TARGETS dpx_${name} EXPORT dpx-${name}-targets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(EXPORT dpx-${name}-targets NAMESPACE dpx:: DESTINATION ${DPX_CMAKEDIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY DPX_COMPONENTS ${name})
  set_property(GLOBAL PROPERTY DPX_DEPS_${name} ${A_DEPS})
  set_property(GLOBAL PROPERTY DPX_FIND_${name} "${A_FIND}")
endfunction()

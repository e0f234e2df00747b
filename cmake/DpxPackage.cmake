# Writes dpxConfig.cmake / dpxConfigVersion.cmake from the components registered so far.
function(dpx_write_package_config)
  get_property(components GLOBAL PROPERTY DPX_COMPONENTS)
  set(DPX_COMPONENT_LIST "${components}")
  set(DPX_COMPONENT_DEPS "")
  set(DPX_COMPONENT_FINDS "")
  foreach(c IN LISTS components)
    get_property(d GLOBAL PROPERTY DPX_DEPS_${c})
    string(REPLACE ";" " " d "${d}")
    string(APPEND DPX_COMPONENT_DEPS "set(_dpx_deps_${c} ${d})\n")
    # One find_dependency() argument string per list element ("Boost 1.74", "BLAS").
    get_property(f GLOBAL PROPERTY DPX_FIND_${c})
    string(APPEND DPX_COMPONENT_FINDS "set(_dpx_find_${c} \"${f}\")\n")
  endforeach()
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dpxConfig.cmake.in
    ${PROJECT_BINARY_DIR}/dpxConfig.cmake INSTALL_DESTINATION ${DPX_CMAKEDIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/dpxConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/dpxConfig.cmake ${PROJECT_BINARY_DIR}/dpxConfigVersion.cmake
          DESTINATION ${DPX_CMAKEDIR})
endfunction()

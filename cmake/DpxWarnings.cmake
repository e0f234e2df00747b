# Project-wide warning and floating-point flags, applied through an interface target so that
# consumers of the installed package do not inherit them.
add_library(dpx_build_flags INTERFACE)
target_compile_options(dpx_build_flags INTERFACE
  -Wall -Wextra -Wpedantic
  # Reproducibility: never contract a*b+c into an FMA behind our back (style.md A.2).
  -ffp-contract=off)
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string operations at -O2
# (GCC bugs 105329 and 105651, fixed in GCC 13); they would break -Werror builds.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(dpx_build_flags INTERFACE -Wno-restrict)
endif()
if(DPX_WERROR)
  target_compile_options(dpx_build_flags INTERFACE -Werror)
endif()

# Project-wide warning and floating-point flags, applied through an interface target so that
# consumers of the installed package do not inherit them.
add_library(dpx_build_flags INTERFACE)
target_compile_options(dpx_build_flags INTERFACE
  -Wall -Wextra -Wpedantic
  # Reproducibility: never contract a*b+c into an FMA behind our back (style.md A.2).
  -ffp-contract=off)
# GCC 12 reports false -Wrestrict, -Wstringop-overflow and -Warray-bounds positives inside
# libstdc++'s std::string operations (memcpy in char_traits) at -O2 (GCC bugs 105329, 105651,
# 106199; fixed in GCC 13), depending on inlining decisions elsewhere in the translation unit;
# they would break -Werror builds. Real out-of-bounds accesses are caught by the asan preset.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(dpx_build_flags INTERFACE -Wno-restrict -Wno-stringop-overflow
                                                   -Wno-array-bounds)
endif()
if(DPX_WERROR)
  target_compile_options(dpx_build_flags INTERFACE -Werror)
endif()

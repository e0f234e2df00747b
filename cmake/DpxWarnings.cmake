# Project-wide warning and floating-point flags, applied through an interface target so that
# consumers of the installed package do not inherit them.
add_library(dpx_build_flags INTERFACE)
target_compile_options(dpx_build_flags INTERFACE
  -Wall -Wextra -Wpedantic
  # Reproducibility: never contract a*b+c into an FMA behind our back (style.md A.2).
  -ffp-contract=off)
if(DPX_WERROR)
  target_compile_options(dpx_build_flags INTERFACE -Werror)
endif()

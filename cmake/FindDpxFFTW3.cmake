# FindDpxFFTW3: the double-precision FFTW3 library (Debian: libfftw3-dev) as the imported
# target DpxFFTW3::fftw3. Used by dpx itself and installed next to dpxConfig.cmake, so that a
# project consuming an installed dpx without FFTW fails when it configures, with this message,
# rather than when it links. (Debian's own FFTW3Config.cmake refers to a file the package does
# not ship, hence a Find module.)
#
# Looks in pkg-config's fftw3 module first, then the default library and include paths.
# Result variables: DpxFFTW3_FOUND, DpxFFTW3_LIBRARY, DpxFFTW3_INCLUDE_DIR, DpxFFTW3_VERSION.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_DPX_FFTW3 QUIET fftw3)
endif()
find_path(DpxFFTW3_INCLUDE_DIR fftw3.h HINTS ${PC_DPX_FFTW3_INCLUDE_DIRS})
find_library(DpxFFTW3_LIBRARY NAMES fftw3 HINTS ${PC_DPX_FFTW3_LIBRARY_DIRS})
# The long-double library (same Debian package): the PLD accountant switches to long-double FFTs
# when T * 2^-52 of rounding noise would matter against delta (docs/accounting.md).
find_library(DpxFFTW3_LONG_LIBRARY NAMES fftw3l HINTS ${PC_DPX_FFTW3_LIBRARY_DIRS})
set(DpxFFTW3_VERSION "${PC_DPX_FFTW3_VERSION}")

include(FindPackageHandleStandardArgs)
string(CONCAT _dpx_fftw3_message
  "dpx needs FFTW3 (double precision: fftw3.h and libfftw3, Debian/Ubuntu: apt-get install "
  "libfftw3-dev: libfftw3 and libfftw3l). Set DpxFFTW3_LIBRARY, DpxFFTW3_LONG_LIBRARY and DpxFFTW3_INCLUDE_DIR if it is installed elsewhere")
find_package_handle_standard_args(DpxFFTW3
  REQUIRED_VARS DpxFFTW3_LIBRARY DpxFFTW3_LONG_LIBRARY DpxFFTW3_INCLUDE_DIR
  VERSION_VAR DpxFFTW3_VERSION
  FAIL_MESSAGE "${_dpx_fftw3_message}")
unset(_dpx_fftw3_message)
mark_as_advanced(DpxFFTW3_INCLUDE_DIR DpxFFTW3_LIBRARY DpxFFTW3_LONG_LIBRARY)

if(DpxFFTW3_FOUND AND NOT TARGET DpxFFTW3::fftw3)
  add_library(DpxFFTW3::fftw3 UNKNOWN IMPORTED)
  set_target_properties(DpxFFTW3::fftw3 PROPERTIES
    IMPORTED_LOCATION "${DpxFFTW3_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${DpxFFTW3_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${DpxFFTW3_LONG_LIBRARY}")
endif()

# Build options and the interface targets that carry flags. Nothing here touches
# directory-wide state: every module links hn_warnings, and the sanitizer
# interface is linked only when a sanitizer option is on.
option(HN_BUILD_TESTS "Build the Catch2 tests" ON)
option(HN_ASAN "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(HN_TSAN "Build with ThreadSanitizer" OFF)
option(HN_FUZZ "Build the libFuzzer targets (needs clang++)" OFF)
option(HN_TEST_PCH "Precompile Catch2, nlohmann-json and the common std headers once for every test (g++ only)" ON)
option(HN_MODULE_UNITY "Compile each COLD module's files in batches of 8 (unity build)" ON)
option(HN_TEST_UNITY "Compile each test program's files in batches of 8 (unity build)" ON)

if(HN_ASAN AND HN_TSAN)
  message(FATAL_ERROR "HN_ASAN and HN_TSAN cannot be combined")
endif()

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

add_library(hn_warnings INTERFACE)
target_compile_features(hn_warnings INTERFACE cxx_std_20)
target_compile_options(hn_warnings INTERFACE -Wall -Wextra)

# hn_module(... COLD): HN_COLD_OPT after the build type's -O2 (the last -O
# wins); -DHN_COLD_OPT=-O2 builds every module alike.
set(HN_COLD_OPT "-O1" CACHE STRING "optimisation of the COLD modules in optimised builds")
add_library(hn_cold_flags INTERFACE)
target_compile_options(hn_cold_flags INTERFACE $<$<CONFIG:Release,RelWithDebInfo>:${HN_COLD_OPT}>)

# Test programs only (hn_test() and the tests' precompiled header): -Og in
# the optimized configurations. The code under test is the modules' static
# libraries, built at the project's level (-O2), so the tests check the code
# that ships; only the Catch2 drivers are optimized less. With the shared
# header, a test file took 1.3-6.7 s of CPU against 2.0-11.7 s at -O2 without
# it, and the 200 test files are over half of a clean build. Not -O1: g++ 12
# gives false -Warray-bounds warnings inside std::string there.
add_library(hn_test_flags INTERFACE)
target_compile_options(hn_test_flags INTERFACE $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-Og>)

add_library(hn_sanitize INTERFACE)
if(HN_ASAN)
  target_compile_options(hn_sanitize INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(hn_sanitize INTERFACE -fsanitize=address,undefined)
elseif(HN_FUZZ)
  # Coverage feedback for libFuzzer in every module the fuzz targets link.
  target_compile_options(hn_sanitize INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  target_link_options(hn_sanitize INTERFACE -fsanitize=address,undefined)
elseif(HN_TSAN)
  target_compile_options(hn_sanitize INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(hn_sanitize INTERFACE -fsanitize=thread)
endif()

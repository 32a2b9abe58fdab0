# hn_module(<target> [COLD] SOURCES ... [DEPS ...])
#   One static library per module. Includes are rooted at the project root, so
#   code writes #include "reports/finding.h". Flags come from hn_warnings.
#   COLD: a module with no hot loop (parsers, reports, command orchestration,
#   whose run time is the input's size or a peer's wait) builds at -O1 in
#   optimised builds: g++ 12 compiles such template-heavy code about 30 %
#   faster than at -O2 (bench.cc 7.7 -> 5.1 s, toml_input.cc 8.4 -> 6.0 s),
#   and what it runs is I/O-bound. The modules that move and compute data
#   (stack/, drivers/, bench/) stay at -O2.
#   COLD modules also build in unity batches of 8 (HN_MODULE_UNITY): their
#   files include the same heavy parser headers, parsed once per batch.
function(hn_module target)
  cmake_parse_arguments(ARG "COLD" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE hn_warnings hn_sanitize ${ARG_PRIVATE_DEPS})
  if(ARG_COLD)
    target_link_libraries(${target} PRIVATE hn_cold_flags)
    if(HN_MODULE_UNITY)
      set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    endif()
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# hn_test(<target> LABELS <labels> SOURCES ... DEPS ... [TIMEOUT s] [COST c] [SERIAL] [IDLE])
#   One Catch2 executable per unit under test; every TEST_CASE becomes a ctest
#   test carrying LABELS. Exit code 77 means "skipped" (see tests/support/skip.h).
#   COST makes `ctest -j` start long tests first on a clean checkout (no
#   timing history yet), so they overlap the rest instead of trailing it.
#   SERIAL runs its tests with nothing beside them (RUN_SERIAL): for a test
#   that loads every CPU on purpose, whose load must not fail other tests.
#   PROCESSORS counts half-CPUs: a test takes 2, one that mostly waits out a
#   deadline (IDLE) takes 1, and scripts/test runs ctest -j (2 x CPUs + 1),
#   so one idle test runs beside a full machine instead of holding a CPU's
#   slot (a silent-peer contract test sleeps 140 s).
function(hn_test target)
  cmake_parse_arguments(ARG "SERIAL;IDLE" "TIMEOUT;COST" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  set(cost_property "")
  if(ARG_COST)
    set(cost_property COST ${ARG_COST})
  endif()
  if(ARG_SERIAL)
    list(APPEND cost_property RUN_SERIAL TRUE)
  endif()
  if(ARG_IDLE)
    list(APPEND cost_property PROCESSORS 1)
  else()
    list(APPEND cost_property PROCESSORS 2)
  endif()
  add_executable(${target} ${ARG_SOURCES})
  if(HN_TEST_UNITY)
    # Batches of test files compile as one: the project headers a test file
    # includes were 27 of the 63 CPU-s of hn_reports_tests' 22 files when
    # each was parsed alone (1.3 s for them all at once).
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_DEPS} hn_test_support Catch2::Catch2WithMain hn_warnings hn_test_flags hn_sanitize)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  if(TARGET hn_test_pch)
    target_precompile_headers(${target} REUSE_FROM hn_test_pch)
  endif()
  # --warn NoTests: a ctest entry whose filter matches no TEST_CASE fails
  # instead of passing silently (a ';' in a test name splits it in two).
  catch_discover_tests(${target}
    TEST_PREFIX "${target}:"
    EXTRA_ARGS --warn NoTests
    PROPERTIES LABELS "${ARG_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT ${ARG_TIMEOUT} ${cost_property}
    DISCOVERY_TIMEOUT 30)
endfunction()

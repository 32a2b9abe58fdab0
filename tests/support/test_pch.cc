// The translation unit that carries the tests' precompiled header (tests/CMakeLists.txt,
// hn_test_pch): CMake compiles the header set beside it; this file adds nothing.

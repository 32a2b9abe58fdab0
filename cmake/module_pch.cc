// The translation unit that carries the modules' precompiled header
// (cmake/HnModule.cmake, hn_module_pch): CMake compiles the header set beside
// it; this file adds nothing.

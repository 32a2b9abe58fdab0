# Every third-party dependency is found here, once. scripts/install-deps.sh
# installs the Debian packages that provide them.
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(yaml-cpp REQUIRED)
find_package(toml11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)  # gzipped torch.profiler traces (ops)
# libonnx-dev's config links protobuf::libprotobuf, which Protobuf must define first.
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBNL REQUIRED IMPORTED_TARGET libnl-3.0 libnl-route-3.0)
pkg_check_modules(IBVERBS REQUIRED IMPORTED_TARGET libibverbs)
if(HN_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
  include(Catch)
  # Only the faultfs test file system needs it; without it the fuse tests skip.
  pkg_check_modules(FUSE3 IMPORTED_TARGET fuse3)
endif()

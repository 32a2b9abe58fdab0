# Every third-party dependency is found here, once. scripts/install-deps.sh
# installs the Debian packages that provide them.

# What CMake did not find stays "not found" in the cache until CMake runs
# again, and a build only re-runs it when a CMake file changes. So the Debian
# package database is a configure input too: installing or removing a package
# re-runs CMake at the next build (scripts/build.sh or `cmake --build`), and a
# build configured before `scripts/install-deps.sh --test` finds what that
# installed. Tests point it at a file of their own.
set(HN_PACKAGE_DATABASE "/var/lib/dpkg/status" CACHE FILEPATH
    "a file that changes whenever a system package is installed or removed")
if(EXISTS "${HN_PACKAGE_DATABASE}")
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${HN_PACKAGE_DATABASE}")
endif()

# Optional dependencies are recorded, one line each ("<name> <Debian package>
# found|missing"), in <build>/optional-dependencies.txt: scripts/check-build-deps
# fails loudly when a package is installed but the build went without it.
set(HN_OPTIONAL_DEPENDENCIES_FILE "${PROJECT_BINARY_DIR}/optional-dependencies.txt")
file(WRITE "${HN_OPTIONAL_DEPENDENCIES_FILE}" "")
function(hn_optional_dependency name debian_package found_var)
  if(${found_var})
    set(state found)
  else()
    set(state missing)
  endif()
  file(APPEND "${HN_OPTIONAL_DEPENDENCIES_FILE}" "${name} ${debian_package} ${state}\n")
endfunction()
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
  hn_optional_dependency(fuse3 libfuse3-dev FUSE3_FOUND)
endif()

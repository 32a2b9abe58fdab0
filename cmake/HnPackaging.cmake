# What `cmake --install` puts where, and `cpack -G DEB` (run in the build
# directory) turning it into hnprecheck_<version>_<arch>.deb:
#   /usr/bin/hnprecheck
#   /usr/share/man/man1/hnprecheck.1.gz        generated from the command table
#   /usr/share/bash-completion/completions/hnprecheck   likewise
#   /usr/share/doc/hnprecheck/examples/profiles/*.yaml   example cluster profiles
#   /usr/libexec/hnprecheck/slurm-{prolog,healthcheck}  Slurm wrappers (deploy/slurm)
#   /usr/libexec/hnprecheck/run-every          the Kubernetes DaemonSet's loop (deploy/)
# Dependencies come from the binary itself (dpkg-shlibdeps, from dpkg-dev),
# so they follow whatever the build linked.
include(GNUInstallDirs)

set(HN_PACKAGE_MAINTAINER "hnprecheck maintainers <hnprecheck-maintainers@localhost>"
    CACHE STRING "Maintainer field of the .deb (set your own when you distribute it)")

# Debian ships man pages compressed with gzip -9n (no name, no time stamp).
set(hn_man_gz ${PROJECT_BINARY_DIR}/share/man/man1/hnprecheck.1.gz)
add_custom_command(
  OUTPUT ${hn_man_gz}
  COMMAND sh -c "gzip -9nc \"$1\" > \"$2\"" gzip ${HN_MAN_PAGE} ${hn_man_gz}
  DEPENDS ${HN_MAN_PAGE}
  VERBATIM
  COMMENT "Compressing the man page")
add_custom_target(hn_man_gz ALL DEPENDS ${hn_man_gz})

install(TARGETS hnprecheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${hn_man_gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${HN_BASH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/profiles/default.yaml
        ${PROJECT_SOURCE_DIR}/examples/profiles/roce-cluster.yaml
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/profiles)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/slurm/slurm-prolog
        ${PROJECT_SOURCE_DIR}/deploy/slurm/slurm-healthcheck ${PROJECT_SOURCE_DIR}/deploy/run-every
        DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hnprecheck)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/slurm/slurm-common.sh
        DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hnprecheck)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hnprecheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${HN_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HN_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "pre-flight checks and certification for AI training clusters")
set(CPACK_PACKAGE_DESCRIPTION
    "hnprecheck checks a node against a cluster profile (network planes, RDMA, storage, hardware) in well under a second and never hangs: for Slurm Prologs, health checks and Kubernetes. It also benchmarks collectives on its bundled stack and checks operator and communication-parameter compatibility.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, bash-completion, prometheus-node-exporter")
set(CPACK_STRIP_FILES ON)
include(CPack)

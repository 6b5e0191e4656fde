# What `cmake --install` puts under CMAKE_INSTALL_PREFIX (/usr for the Debian package) and the
# CPack DEB generator's settings (tools/package). Paths are relative to the prefix: nothing
# goes to /usr/local unless that is the prefix asked for.
set(FSMOVE_DOC_DIR share/doc/fsmove)

install(TARGETS fsmove RUNTIME DESTINATION bin)
# The manual pages (fsmove(1), fsmove-check(1), ...) when the build generated them into
# ${CMAKE_BINARY_DIR}/man; a build without the generator installs none and still packages.
install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION share/man/man1 OPTIONAL
        FILES_MATCHING PATTERN "*.1")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/packaging/copyright
        DESTINATION ${FSMOVE_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${FSMOVE_DOC_DIR}/docs)
# The CI recipes, to copy into a project: the GitHub action, the GitLab job and the script both
# run.
install(FILES ${PROJECT_SOURCE_DIR}/action.yml ${PROJECT_SOURCE_DIR}/tools/ci/gitlab-ci.yml
        DESTINATION ${FSMOVE_DOC_DIR}/examples)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/ci/run-check DESTINATION ${FSMOVE_DOC_DIR}/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fsmove)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "fsmove maintainers <maintainers@users.noreply.a-seed-76bf4625.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds missing ordering relationships and notifiers in Puppet code")
set(CPACK_PACKAGE_DESCRIPTION
    "fsmove runs a Puppet manifest under strace in a throw-away sandbox (or reads a recorded\n\
trace), interprets every file system access against the compiled catalog and reports the\n\
resources that touch the same files without an ordering relationship or a notifier between\n\
them, with the fix to add.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)        # fsmove_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${FSMOVE_INFORMATION_URI})
# The shared libraries' packages from dpkg-shlibdeps (dpkg-dev), then what `fsmove check` runs:
# strace, mmdebstrap (the pinned roots), slirp4netns (the sandbox's network), uidmap (newuidmap,
# newgidmap when rootless) and util-linux (unshare, mount). Puppet runs inside the pinned root;
# the host's own is needed only for `--root host`.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "strace, mmdebstrap, slirp4netns, uidmap, util-linux")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "puppet-agent")
include(CPack)

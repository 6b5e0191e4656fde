# What `cmake --install` puts under CMAKE_INSTALL_PREFIX (/usr for the Debian package) and the
# CPack DEB generator's settings (tools/package). Paths are relative to the prefix: nothing
# goes to /usr/local unless that is the prefix asked for.
set(FSMOVE_DOC_DIR share/doc/fsmove)

install(TARGETS fsmove RUNTIME DESTINATION bin)
# The manual pages (fsmove(1), fsmove-check(1), ...), gzipped, and the shell completions, as
# the build wrote them from the CLI's definitions (CMakeLists.txt: fsmove_man,
# fsmove_completions).
install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION share/man/man1
        FILES_MATCHING PATTERN "*.1.gz")
install(FILES ${CMAKE_BINARY_DIR}/completions/fsmove
        DESTINATION share/bash-completion/completions)
install(FILES ${CMAKE_BINARY_DIR}/completions/_fsmove DESTINATION share/zsh/vendor-completions)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/packaging/copyright
        DESTINATION ${FSMOVE_DOC_DIR})
# The Debian changelog (packaging/changelog): its newest entry is this version's, or the
# configure stops (bump both together when cutting a release: docs/ci.md).
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/changelog FSMOVE_CHANGELOG_TOP LIMIT_COUNT 1)
if(NOT FSMOVE_CHANGELOG_TOP MATCHES "^fsmove \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "packaging/changelog starts with '${FSMOVE_CHANGELOG_TOP}', not an entry "
                      "for fsmove ${PROJECT_VERSION} (CMakeLists.txt's project version)")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog)
# The Debian changelog, gzipped as Debian ships it: changelog.gz, the
# name of a native package's (its version has no Debian revision).
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog.gz
  COMMAND gzip -9 -n -c ${PROJECT_SOURCE_DIR}/packaging/changelog > ${CMAKE_BINARY_DIR}/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  COMMENT "Compressing the Debian changelog")
add_custom_target(fsmove_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/changelog.gz DESTINATION ${FSMOVE_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${FSMOVE_DOC_DIR}/docs)
# The CI recipes, to copy into a project: the GitHub action, the GitLab job and the script both
# run.
install(FILES ${PROJECT_SOURCE_DIR}/action.yml ${PROJECT_SOURCE_DIR}/tools/ci/gitlab-ci.yml
              ${PROJECT_SOURCE_DIR}/tools/ci/gitlab-ci-container.yml
              ${PROJECT_SOURCE_DIR}/tools/ci/github-container.yml
        DESTINATION ${FSMOVE_DOC_DIR}/examples)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/ci/run-check DESTINATION ${FSMOVE_DOC_DIR}/examples)
# The script both run, where a job finds it once the package is installed (Debian's minimal
# images leave /usr/share/doc out).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/ci/run-check DESTINATION libexec/fsmove)
# The JSON report's schema (docs/json-report.schema.json), where a consumer's validation finds
# it without the docs.
install(FILES ${PROJECT_SOURCE_DIR}/docs/json-report.schema.json DESTINATION share/fsmove)
# What lintian reports and is meant (packaging/lintian-overrides says why).
install(FILES ${PROJECT_SOURCE_DIR}/packaging/lintian-overrides DESTINATION share/lintian/overrides
        RENAME fsmove)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fsmove)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "fsmove maintainers <maintainers@users.noreply.a-seed-76bf4625.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds missing ordering relationships and notifiers in Puppet code")
# Lines of at most 80 characters (Debian Policy 3.4.1).
set(CPACK_PACKAGE_DESCRIPTION
    "fsmove runs a Puppet manifest under strace in a throw-away sandbox (or reads a\n\
recorded trace), interprets every file system access against the compiled\n\
catalog and reports the resources that touch the same files without an ordering\n\
relationship or a notifier between them, with the fix to add.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)        # fsmove_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${FSMOVE_INFORMATION_URI})
# The shared libraries' packages from dpkg-shlibdeps (dpkg-dev), then what `fsmove check` runs:
# strace, mmdebstrap (the pinned roots), slirp4netns (the sandbox's network) and uidmap
# (newuidmap, newgidmap when rootless); debian-archive-keyring, the key mmdebstrap checks
# Debian's mirror with (on Debian it comes with apt, but not on Ubuntu, whose runners GitHub
# hosts, nor in a container image made without apt); zstd, which `fsmove root export` and
# `root import` compress with (an archive is a tar.zst). util-linux (unshare, mount) is Essential in Debian,
# always there: naming it unversioned is an error to lintian. Puppet runs inside the pinned
# root; the host's own is needed only for `--root host`. r10k deploys a control repo's
# Puppetfile (on the host, as the user), so it is recommended, not needed to check a module.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "strace, mmdebstrap, slirp4netns, uidmap, debian-archive-keyring, zstd")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "r10k, git")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "puppet-agent")
include(CPack)

// Lexical path arithmetic the way Puppet's File type sees paths: canonical form,
// parent directory and "strictly under", all without touching the file system.
#ifndef FSMOVE_CATALOG_FILE_PATH_H_
#define FSMOVE_CATALOG_FILE_PATH_H_

#include <string>
#include <string_view>

namespace fsmove::catalog {

inline bool IsAbsolutePath(std::string_view path) { return !path.empty() && path[0] == '/'; }

// Puppet munges File paths with File.join(File.split(File.expand_path(path))): repeated
// slashes collapse, "." and ".." are resolved lexically (".." at the root stays at the
// root), a trailing slash goes; symlinks are NOT resolved. "/tmp//x/./y/../z/" becomes
// "/tmp/x/z". A relative path is returned unchanged: expanding it would depend on the
// current directory of whoever runs us, and Puppet rejects relative File paths anyway.
std::string CanonicalFilePath(std::string_view path);

// Parent of a canonical absolute path: "/a/b" -> "/a", "/a" -> "/", "/" -> "" (none).
std::string_view ParentDirectory(std::string_view canonical_path);

// True when `path` lies strictly below directory `dir` (both canonical): "/a/b" is under
// "/a" and under "/", "/ab" is not under "/a", "/a" is not under itself.
bool IsStrictlyUnder(std::string_view path, std::string_view dir);

}  // namespace fsmove::catalog

#endif  // FSMOVE_CATALOG_FILE_PATH_H_

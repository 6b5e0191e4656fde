// What an archive from elsewhere holds, judged before anything of it is unpacked: a Forge
// module's tarball (module_sources.cc), a pinned root exported by another job
// (root_archive.h). GNU tar lists it (`tar -tv --numeric-owner --quoting-style=c`), this
// parses the listing and refuses what could write outside the directory it is unpacked in,
// or fill the disk: absolute names, `..`, a member beneath a symbolic link of the archive
// (tar would write through the link), a link that leads out, devices, FIFOs, and more bytes
// or members than the caller allows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fsmove::exec {

// One member of a listing.
struct TarEntry {
  char type = '-';    // '-' file, 'd' directory, 'l' symbolic link, 'h' hard link, or another
  uint64_t size = 0;  // a regular file's bytes
  std::string name;   // as stored, a leading "./" removed ("" for the archive's "./")
  std::string link;   // a symbolic link's target, a hard link's member
};

// The entries of `tar -tv --numeric-owner --quoting-style=c` output; an error names the line
// it cannot read.
absl::StatusOr<std::vector<TarEntry>> ParseTarListing(std::string_view listing);

struct TarPolicy {
  // Symbolic links whose target is absolute: a root's (/dev/fd -> /proc/self/fd,
  // /etc/alternatives), which mean the root's own files once it is the sandbox's `/`. A
  // relative target that climbs out of the archive is refused all the same.
  bool absolute_link_targets = false;
  bool hard_links = false;                   // to an earlier member of the archive
  uint64_t max_bytes = uint64_t{256} << 20;  // the regular files' sizes added up
  size_t max_entries = 100000;
};

// OK when every entry is safe to unpack under `policy`; else why not, naming the entry.
absl::Status CheckTarEntries(const std::vector<TarEntry>& entries, const TarPolicy& policy);

// Lists `archive` with `tar` (`decompress`: "-z", "--zstd", or "" to let tar tell) and checks
// it; returns its entries. An error says why, without the archive's name (the caller's).
absl::StatusOr<std::vector<TarEntry>> ListTarball(const std::string& tar,
                                                  const std::string& archive,
                                                  const std::string& decompress,
                                                  const TarPolicy& policy);

}  // namespace fsmove::exec

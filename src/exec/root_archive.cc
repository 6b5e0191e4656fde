// A pinned root as one file; see root_archive.h.
#include "fsmove/exec/root_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/base/sha256.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/tar_listing.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace fs = std::filesystem;
namespace {

// The most an archive's NAME.json may hold (a root's is about 7 KB).
constexpr uint64_t kMaxMetadataBytes = 1u << 20;

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

absl::StatusOr<std::string> FileSha256(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return base::ErrnoStatus(fmt::format("cannot read {}", path));
  base::Sha256 sha;
  std::string buf(1u << 20, '\0');
  for (;;) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      absl::Status err = base::ErrnoStatus(fmt::format("cannot read {}", path));
      close(fd);
      return err;
    }
    if (n == 0) break;
    sha.Update(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
  close(fd);
  return sha.FinishHex();
}

// An owner counted from the root's id_base (uid 0 inside is id_base on disk).
uint32_t Inside(uint32_t id, uint32_t id_base) { return id >= id_base ? id - id_base : id; }

// The line of one member in the content hash; "" for what an archive leaves out (devices,
// FIFOs, sockets).
absl::StatusOr<std::string> MemberLine(const std::string& path, const std::string& name,
                                       uint32_t id_base) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return base::ErrnoStatus(fmt::format("cannot stat {}", path));
  const std::string head =
      fmt::format("{:o} {} {} {}:{}", st.st_mode & 07777, Inside(st.st_uid, id_base),
                  Inside(st.st_gid, id_base), name.size(), name);
  if (S_ISDIR(st.st_mode)) return "d " + head;
  if (S_ISREG(st.st_mode)) {
    absl::StatusOr<std::string> sha = FileSha256(path);
    if (!sha.ok()) return sha.status();
    return fmt::format("- {} {} {}", head, st.st_size, *sha);
  }
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::string target = fs::read_symlink(path, ec).string();
    if (ec)
      return absl::InternalError(fmt::format("cannot read the link {}: {}", path, ec.message()));
    return fmt::format("l {} {}:{}", head, target.size(), target);
  }
  return std::string();
}

// Removes a directory of the root cache on every return that does not keep it.
struct TreeRemover {
  std::string path;
  ~TreeRemover() {
    if (!path.empty()) (void)RemoveRootTree(path);
  }
};

std::string WithoutNewlines(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The root an archive holds, from its listing: NAME.json first (a file), then NAME and what
// is beneath it, NAME a known root's; else why it is not such an archive.
absl::StatusOr<std::string> ArchivedRootName(const std::vector<TarEntry>& entries) {
  if (entries.empty() || entries[0].type != '-' || !entries[0].name.ends_with(".json")) {
    return absl::InvalidArgumentError(
        "it is no root fsmove exported: its first member is not NAME.json");
  }
  const std::string name = entries[0].name.substr(0, entries[0].name.size() - 5);
  if (FindRecipe(name) == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("it holds {}, not a root fsmove knows ({})", name, KnownRootNames()));
  }
  if (entries[0].size > kMaxMetadataBytes) {
    return absl::InvalidArgumentError(
        fmt::format("its {} is over {} bytes", entries[0].name, kMaxMetadataBytes));
  }
  for (size_t i = 1; i < entries.size(); ++i) {
    const std::string& n = entries[i].name;
    if (n != name && !n.starts_with(name + "/")) {
      return absl::InvalidArgumentError(
          fmt::format("its member {} is neither {}.json nor beneath {}/", n, name, name));
    }
    // Read on the host (Describe): a file, never a link out.
    if (n == name + "/var/lib/dpkg/status" && entries[i].type != '-') {
      return absl::InvalidArgumentError(fmt::format("its {} is not a regular file", n));
    }
  }
  return name;
}

// The metadata an archive brought (unpacked in `dir`), checked against what it must say.
absl::StatusOr<nlohmann::json> ArchivedMetadata(const std::string& dir, const std::string& name) {
  absl::StatusOr<std::string> text = base::ReadFile(dir + "/" + name + ".json", "root metadata");
  if (!text.ok()) return text.status();
  nlohmann::json meta = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  auto field = [&](const char* key) {
    return meta.is_object() && meta.contains(key) ? meta[key] : nlohmann::json();
  };
  if (!meta.is_object() || field("name") != name) {
    return absl::InvalidArgumentError(
        fmt::format("its {}.json is not the metadata of the root {}", name, name));
  }
  if (!field("format").is_number_integer() || field("format").get<int>() < kRootFormat) {
    return absl::InvalidArgumentError(fmt::format(
        "its root was built by an older fsmove (format {}, not {}): export one built by this "
        "fsmove",
        field("format").dump(), kRootFormat));
  }
  const nlohmann::json sha = field("content_sha256");
  if (!sha.is_string() || sha.get<std::string>().size() != 64 ||
      sha.get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::InvalidArgumentError(fmt::format("its {}.json records no content_sha256", name));
  }
  if (field("id_base").is_number() && field("id_base") != 0) {
    return absl::InvalidArgumentError(
        "its root was built with mmdebstrap --mode=unshare (files owned by a user's "
        "subordinate ids): export one built by root");
  }
  return meta;
}

// Runs tar; an error quotes what it said.
absl::Status RunTar(const std::vector<std::string>& argv, const std::string& what) {
  // fmt, not "PATH=" + string: g++ 14 warns (-Warray-bounds) inside the inlined operator+.
  absl::StatusOr<CapturedRun> run =
      RunCaptured(argv, {fmt::format("PATH={}", kSafePath), "LC_ALL=C"});
  if (!run.ok()) return run.status();
  if (run->wait_status != 0) {
    return absl::InternalError(fmt::format("tar could not {} ({}): {}", what,
                                           DescribeWaitStatus(run->wait_status),
                                           WithoutNewlines(run->err.substr(0, 500))));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Tar() {
  std::optional<std::string> tar = FindExecutable("tar", kSafePath);
  if (!tar || !FindExecutable("zstd", kSafePath)) {
    return absl::FailedPreconditionError(
        "a root archive is a zstd-compressed tar: install tar and zstd (`apt-get install zstd`)");
  }
  return *tar;
}

}  // namespace

absl::StatusOr<std::string> RootContentHash(const std::string& dir, uint32_t id_base,
                                            std::vector<std::string>* members) {
  std::vector<std::string> names = {""};
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().string().substr(dir.size() + 1));
  }
  if (ec) return absl::InternalError(fmt::format("cannot list {}: {}", dir, ec.message()));
  std::sort(names.begin(), names.end());
  base::Sha256 sha;
  sha.Update("fsmove-root-content/v1\n");
  for (const std::string& name : names) {
    std::string path = dir;
    if (!name.empty()) path.append("/").append(name);
    absl::StatusOr<std::string> line = MemberLine(path, name, id_base);
    if (!line.ok()) return line.status();
    if (line->empty()) continue;
    sha.Update(*line);
    sha.Update("\n");
    if (members != nullptr) members->push_back(name);
  }
  return sha.FinishHex();
}

absl::StatusOr<std::string> ExportRoot(const std::string& name, const std::string& file,
                                       const base::DiagnosticSink& say) {
  if (FindRecipe(name) == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("no root named {} (known: {})", name, KnownRootNames()));
  }
  absl::StatusOr<OsRoot> root = ResolveRoot(name, /*build_missing=*/false);
  if (!root.ok()) return root.status();
  if (root->outdated) {
    return absl::FailedPreconditionError(
        fmt::format("the root {} was built by an older fsmove: rebuild it (`fsmove root build {} "
                    "--rebuild`) before exporting it",
                    name, name));
  }
  absl::StatusOr<std::string> tar = Tar();
  if (!tar.ok()) return tar.status();
  const base::UniqueFd lock(LockRootShared(*root));  // -1 when not a named root: none to hold
  std::vector<std::string> members;
  absl::StatusOr<std::string> hash = RootContentHash(root->dir, root->id_base, &members);
  if (!hash.ok()) return hash.status();
  nlohmann::json meta =
      nlohmann::json::parse(base::ReadFile(RootMetadataPath(name)).value_or(""), nullptr, false);
  if (!meta.is_object()) {
    return absl::FailedPreconditionError(
        fmt::format("{}: not the metadata of a root", RootMetadataPath(name)));
  }
  meta["content_sha256"] = *hash;
  meta["exported"] = UtcNow();
  fs::path parent = fs::absolute(file).parent_path();
  std::string staging = (parent / ".fsmove-export-XXXXXX").string();
  if (mkdtemp(staging.data()) == nullptr) {
    return base::ErrnoStatus(fmt::format("cannot make a directory in {}", parent.string()));
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{staging};
  std::ofstream(staging + "/" + name + ".json") << meta.dump(2) << "\n";
  {
    std::ofstream list(staging + "/members", std::ios::binary);
    for (const std::string& m : members) list << name << (m.empty() ? "" : "/") << m << '\0';
    if (!list) return absl::InternalError(fmt::format("cannot write {}/members", staging));
  }
  const std::string part = staging + "/archive";
  absl::Status st =
      RunTar({*tar, "-c", "--zstd", "--numeric-owner", "--no-recursion", "-f", part, "-C", staging,
              name + ".json", "-C", RootCacheDir(), "--null", "-T", staging + "/members"},
             "write " + file);
  if (!st.ok()) return st;
  if (rename(part.c_str(), file.c_str()) != 0) {
    return base::ErrnoStatus(fmt::format("cannot rename {} to {}", part, file));
  }
  if (say) {
    std::error_code ec;
    say(
        base::Note(fmt::format("exported the root {} ({} members, {} bytes compressed, content "
                               "sha256 {}) to {}",
                               name, members.size(), fs::file_size(file, ec), *hash, file)));
  }
  return hash;
}

absl::StatusOr<OsRoot> ImportRoot(const std::string& file, const RootImportOptions& options) {
  auto fail = [&](const absl::Status& st) {
    return absl::Status(st.code(), fmt::format("{}: {}", file, std::string(st.message())));
  };
  if (geteuid() != 0) {
    return fail(absl::FailedPreconditionError(
        "importing a root needs root: its files belong to root and Debian's system users, "
        "and are unpacked with their owners (import it as root, as it was exported)"));
  }
  absl::StatusOr<std::string> tar = Tar();
  if (!tar.ok()) return tar.status();
  TarPolicy policy;
  policy.absolute_link_targets = true;
  policy.hard_links = true;
  policy.max_bytes = options.max_bytes;
  policy.max_entries = 1000000;
  absl::StatusOr<std::vector<TarEntry>> entries = ListTarball(*tar, file, "--zstd", policy);
  if (!entries.ok()) return fail(entries.status());
  absl::StatusOr<std::string> name = ArchivedRootName(*entries);
  if (!name.ok()) return fail(name.status());
  // Unpacked where only root can look, until it is checked.
  const std::string cache = RootCacheDir();
  std::error_code ec;
  fs::create_directories(cache, ec);
  const std::string staging = fmt::format("{}/.{}.import-{}", cache, *name, getpid());
  if (absl::Status st = RemoveRootTree(staging); !st.ok()) return st;
  if (mkdir(staging.c_str(), 0700) != 0) {
    return base::ErrnoStatus(fmt::format("cannot make {}", staging));
  }
  TreeRemover remover{staging};
  if (absl::Status st = RunTar({*tar, "-x", "--zstd", "--numeric-owner", "--same-owner",
                                "--same-permissions", "-f", file, "-C", staging},
                               "unpack it");
      !st.ok()) {
    return fail(st);
  }
  absl::StatusOr<nlohmann::json> meta = ArchivedMetadata(staging, *name);
  if (!meta.ok()) return fail(meta.status());
  const std::string recorded = (*meta)["content_sha256"].get<std::string>();
  absl::StatusOr<std::string> hash = RootContentHash(staging + "/" + *name, 0);
  if (!hash.ok()) return hash.status();
  if (*hash != recorded) {
    return fail(absl::DataLossError(fmt::format(
        "the root it holds has the content hash {}, not the {} it records: the archive is "
        "damaged or was changed; nothing was imported",
        *hash, recorded)));
  }
  if (!options.expect_sha256.empty() && *hash != options.expect_sha256) {
    return fail(absl::FailedPreconditionError(
        fmt::format("its root's content hash is {}, not the {} asked for; nothing was imported",
                    *hash, options.expect_sha256)));
  }
  if (absl::StatusOr<OsRoot> ok = ResolveRoot(staging + "/" + *name, false); !ok.ok()) {
    return fail(ok.status());
  }
  absl::StatusOr<base::UniqueFd> lock = LockRootExclusive(*name);
  if (!lock.ok()) return lock.status();
  const nlohmann::json old =
      nlohmann::json::parse(base::ReadFile(RootMetadataPath(*name)).value_or(""), nullptr, false);
  if (old.is_object() && old.value("content_sha256", "") == *hash &&
      ResolveRoot(*name, false).ok()) {
    if (options.say) {
      options.say(base::Note(
          fmt::format("the root {} in {} has that content already: kept", *name, cache)));
    }
    return ResolveRoot(*name, false);
  }
  (*meta)["imported"] = UtcNow();
  if (absl::Status st = InstallRoot(*name, staging + "/" + *name, *meta, options.say); !st.ok()) {
    return st;
  }
  if (options.say) {
    options.say(base::Note(
        fmt::format("imported the root {} (content sha256 {}) into {}", *name, *hash, cache)));
  }
  return ResolveRoot(*name, false);
}

}  // namespace fsmove::exec

// A pinned root as one file: its content hash (what changes it and what does not), an export
// and import through two caches (FSMOVE_ROOT_CACHE), and the archives an import refuses
// before anything reaches the cache: one whose root was changed after export, one with a
// member outside its root, one whose metadata is not a root's. (On a real root, and in a CI
// container: e2e.root-archive.)
#include "fsmove/exec/root_archive.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../scan/scan_test_dir.h"
#include "fsmove/base/read_file.h"
#include "nlohmann/json.hpp"
#include "scoped_env.h"

namespace fsmove::exec {
namespace {
namespace fs = std::filesystem;
using TempDir = scan::ScanTestDir;

// A named root in a cache, as BuildRoot leaves one (without a content hash, as roots built
// before export existed).
void WriteRoot(const TempDir& cache, const std::string& name) {
  cache.Write(name + "/usr/bin/puppet", "#!/usr/bin/ruby\n");
  cache.Write(name + "/usr/bin/strace", "");
  cache.Write(name + "/var/lib/dpkg/status",
              "Package: puppet-agent\nStatus: install ok installed\nVersion: 7.23.0-1\n\n");
  cache.Write(name + "/etc/hostname", "box\n");
  fs::create_directories(cache.path() / name / "dev");
  ASSERT_EQ(symlink("/proc/self/fd", (cache.path() / name / "dev/fd").c_str()), 0);
  ASSERT_EQ(symlink("usr/bin", (cache.path() / name / "bin").c_str()), 0);
  ASSERT_EQ(mkfifo((cache.path() / name / "dev/initctl").c_str(), 0600), 0);
  nlohmann::json meta = {{"format", kRootFormat}, {"name", name}, {"id_base", 0}};
  cache.Write(name + ".json", meta.dump());
}

void Sh(const std::string& cmd) { ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd; }

TEST(RootArchiveTest, ContentHashSeesContentOwnersModesAndLinksNotTimesOrFifos) {
  TempDir cache;
  WriteRoot(cache, "debian-12");
  const std::string dir = (cache.path() / "debian-12").string();
  std::vector<std::string> members;
  absl::StatusOr<std::string> h0 = RootContentHash(dir, 0, &members);
  ASSERT_TRUE(h0.ok()) << h0.status();
  EXPECT_EQ(h0->size(), 64u);
  EXPECT_EQ(members.front(), "");  // the root itself
  EXPECT_NE(std::find(members.begin(), members.end(), "dev/fd"), members.end());
  EXPECT_EQ(std::find(members.begin(), members.end(), "dev/initctl"), members.end());
  // Times do not count.
  Sh("touch -d 2001-01-01 '" + dir + "/etc/hostname'");
  EXPECT_EQ(*RootContentHash(dir, 0), *h0);
  // Content, mode, owner and a link's target do.
  cache.Write("debian-12/etc/hostname", "other\n");
  const std::string h1 = *RootContentHash(dir, 0);
  EXPECT_NE(h1, *h0);
  ASSERT_EQ(chmod((dir + "/etc/hostname").c_str(), 04755), 0);
  const std::string h2 = *RootContentHash(dir, 0);
  EXPECT_NE(h2, h1);
  if (geteuid() == 0) {
    ASSERT_EQ(lchown((dir + "/etc/hostname").c_str(), 1, 1), 0);
    EXPECT_NE(*RootContentHash(dir, 0), h2);
  }
  const std::string h3 = *RootContentHash(dir, 0);
  fs::remove(dir + "/bin");
  ASSERT_EQ(symlink("usr/sbin", (dir + "/bin").c_str()), 0);
  EXPECT_NE(*RootContentHash(dir, 0), h3);
  absl::StatusOr<std::string> missing = RootContentHash(dir + "/nope", 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(dir + "/nope"), std::string::npos);
}

TEST(RootArchiveTest, ExportThenImportIntoAnotherCache) {
  if (geteuid() != 0) GTEST_SKIP() << "import unpacks a root's owners: as root only";
  TempDir from, to, out;
  WriteRoot(from, "debian-12");
  const std::string file = (out.path() / "debian-12.tar.zst").string();
  std::string hash;
  {
    ScopedEnv env("FSMOVE_ROOT_CACHE", from.path().string());
    absl::StatusOr<std::string> h = ExportRoot("debian-12", file, {});
    ASSERT_TRUE(h.ok()) << h.status();
    hash = *h;
    EXPECT_EQ(hash, *RootContentHash((from.path() / "debian-12").string(), 0));
  }
  ScopedEnv env("FSMOVE_ROOT_CACHE", to.path().string());
  RootImportOptions options;
  options.expect_sha256 = "0000000000000000000000000000000000000000000000000000000000000000";
  absl::StatusOr<OsRoot> wrong = ImportRoot(file, options);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("not the 0000"), std::string::npos) << wrong.status();
  EXPECT_FALSE(fs::exists(to.path() / "debian-12"));
  options.expect_sha256 = hash;
  absl::StatusOr<OsRoot> root = ImportRoot(file, options);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->name, "debian-12");
  EXPECT_FALSE(root->outdated);
  EXPECT_EQ(root->puppet_version, "7.23.0");
  EXPECT_EQ(*RootContentHash((to.path() / "debian-12").string(), 0), hash);
  EXPECT_EQ(fs::read_symlink(to.path() / "debian-12/dev/fd"), "/proc/self/fd");
  nlohmann::json meta =
      nlohmann::json::parse(*base::ReadFile((to.path() / "debian-12.json").string()));
  EXPECT_EQ(meta["content_sha256"], hash);
  // Nothing is left beside it (the unpacking directory is gone).
  for (const auto& e : fs::directory_iterator(to.path())) {
    const std::string n = e.path().filename().string();
    EXPECT_TRUE(n == "debian-12" || n == "debian-12.json" || n == ".debian-12.lock") << n;
  }
  // Again: the same content is kept.
  EXPECT_TRUE(ImportRoot(file, {}).ok());
}

// An archive made by hand from `dir` (what it holds: NAME.json and NAME/ unless told).
std::string Pack(const TempDir& dir, const std::string& members) {
  std::string file = (dir.path() / "a.tar.zst").string();
  Sh("cd '" + dir.path().string() + "' && tar -c --zstd -P -f '" + file + "' " + members);
  return file;
}

absl::Status ImportFails(const std::string& file, const TempDir& cache) {
  ScopedEnv env("FSMOVE_ROOT_CACHE", cache.path().string());
  absl::StatusOr<OsRoot> root = ImportRoot(file, {});
  EXPECT_FALSE(root.ok());
  EXPECT_FALSE(fs::exists(cache.path() / "debian-12")) << "something reached the cache";
  return root.ok() ? absl::OkStatus() : root.status();
}

TEST(RootArchiveTest, RefusesChangedOutsideAndForeignArchives) {
  if (geteuid() != 0) GTEST_SKIP() << "import unpacks a root's owners: as root only";
  TempDir from, work, to;
  WriteRoot(from, "debian-12");
  const std::string file = (work.path() / "x.tar.zst").string();
  {
    ScopedEnv env("FSMOVE_ROOT_CACHE", from.path().string());
    ASSERT_TRUE(ExportRoot("debian-12", file, {}).ok());
  }
  const std::string w = work.path().string();
  Sh("cd '" + w + "' && tar -x --zstd -f x.tar.zst");
  // The root changed after export: its recorded hash no longer matches.
  work.Write("debian-12/etc/hostname", "changed\n");
  absl::Status changed = ImportFails(Pack(work, "debian-12.json debian-12"), to);
  EXPECT_NE(changed.message().find("not the"), std::string::npos) << changed;
  EXPECT_NE(changed.message().find("nothing was imported"), std::string::npos) << changed;
  EXPECT_EQ(changed.message().find(w), 0u) << "the error names the file: " << changed;
  work.Write("debian-12/etc/hostname", "box\n");
  // A member outside the root, written absolute or beside it.
  absl::Status outside =
      ImportFails(Pack(work, "debian-12.json debian-12 '" + w + "/x.tar.zst'"), to);
  EXPECT_NE(outside.message().find("absolute"), std::string::npos) << outside;
  work.Write("evil", "");
  absl::Status beside = ImportFails(Pack(work, "debian-12.json debian-12 evil"), to);
  EXPECT_NE(beside.message().find("neither debian-12.json nor beneath debian-12/"),
            std::string::npos)
      << beside;
  // A member written through a link of the archive.
  Sh("cd '" + w + "' && mkdir -p l e/etc && ln -sfn /etc l/etc && touch e/etc/cron");
  absl::Status through =
      ImportFails(Pack(work,
                       "debian-12.json debian-12 --transform=s,^l,debian-12/z, l/etc "
                       "--transform=s,^e,debian-12/z, e/etc/cron"),
                  to);
  EXPECT_NE(through.message().find("beneath the symbolic link debian-12/z/etc"), std::string::npos)
      << through;
  // Not a root's archive at all.
  absl::Status foreign = ImportFails(Pack(work, "debian-12"), to);
  EXPECT_NE(foreign.message().find("no root fsmove exported"), std::string::npos) << foreign;
  work.Write("junk.tar.zst", "junk");
  absl::Status junk = ImportFails((work.path() / "junk.tar.zst").string(), to);
  EXPECT_NE(junk.message().find("tar cannot read it"), std::string::npos) << junk;
  // Metadata of an older fsmove, or of another root.
  work.Write("debian-12.json", nlohmann::json{{"name", "debian-12"}, {"format", 2}}.dump());
  absl::Status old = ImportFails(Pack(work, "debian-12.json debian-12"), to);
  EXPECT_NE(old.message().find("older fsmove"), std::string::npos) << old;
}

}  // namespace
}  // namespace fsmove::exec

// Archives from elsewhere judged before unpacking: GNU tar's listing parsed (quoted names,
// links, hard links, devices), and every way a member could land outside the directory it is
// unpacked in refused, on listings and on archives GNU tar made.
#include "fsmove/exec/tar_listing.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../scan/scan_test_dir.h"
#include "fsmove/exec/process.h"

namespace fsmove::exec {
namespace {
namespace fs = std::filesystem;
using TempDir = scan::ScanTestDir;

constexpr const char* kListing =
    "drwxr-xr-x 0/0               0 2026-11-30 15:29 \"./\"\n"
    "drwxr-xr-x 0/0               0 2026-11-30 15:29 \"./d/\"\n"
    "lrwxrwxrwx 0/0               0 2026-11-30 15:29 \"./d/abs\" -> \"/etc/passwd\"\n"
    "lrwxrwxrwx 0/0               0 2026-11-30 15:29 \"./d/rel\" -> \"../f\"\n"
    "-rw-r--r-- 0/0               3 2026-11-30 15:29 \"./d/f\"\n"
    "hrw-r--r-- 0/0               0 2026-11-30 15:29 \"./d/hard\" link to \"./d/f\"\n"
    "-rw-r--r-- 1000/1000      1234 2026-11-30 15:29 \"./d/sp ace\\\"q\\n\\303\\251\"\n"
    "crw-rw-rw- 0/0             5,1 2026-11-30 12:18 \"./dev/console\"\n";

std::vector<TarEntry> Parse(const std::string& listing) {
  absl::StatusOr<std::vector<TarEntry>> entries = ParseTarListing(listing);
  EXPECT_TRUE(entries.ok()) << entries.status();
  return entries.ok() ? *entries : std::vector<TarEntry>{};
}

TarEntry Entry(char type, std::string name, std::string link = "", uint64_t size = 0) {
  TarEntry e;
  e.type = type;
  e.name = std::move(name);
  e.link = std::move(link);
  e.size = size;
  return e;
}

TEST(TarListingTest, ParsesGnuTarsListing) {
  std::vector<TarEntry> e = Parse(kListing);
  ASSERT_EQ(e.size(), 8u);
  EXPECT_EQ(e[0].name, "");
  EXPECT_EQ(e[1].name, "d/");
  EXPECT_EQ(e[2].type, 'l');
  EXPECT_EQ(e[2].link, "/etc/passwd");
  EXPECT_EQ(e[3].link, "../f");
  EXPECT_EQ(e[4].size, 3u);
  EXPECT_EQ(e[5].type, 'h');
  EXPECT_EQ(e[5].link, "d/f");
  EXPECT_EQ(e[6].name, "d/sp ace\"q\n\xc3\xa9");
  EXPECT_EQ(e[6].size, 1234u);
  EXPECT_EQ(e[7].type, 'c');
  EXPECT_EQ(e[7].size, 0u);
}

TEST(TarListingTest, UnreadableLinesAreErrorsNamingTheLine) {
  for (const char* bad : {"garbage\n", "-rw-r--r-- 0/0 x 2026-11-30 15:29 \"f\"\n",
                          "-rw-r--r-- 0/0 3 2026-11-30 15:29 \"unterminated\n",
                          "lrwxrwxrwx 0/0 0 2026-11-30 15:29 \"a\" => \"b\"\n"}) {
    absl::StatusOr<std::vector<TarEntry>> e = ParseTarListing(std::string("\n") + bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.status().message().find("line 2"), std::string::npos) << e.status();
  }
}

TEST(TarListingTest, AModuleTarballsShapeIsAccepted) {
  TarPolicy policy;
  std::vector<TarEntry> ok = {Entry('d', "m/"), Entry('-', "m/f", "", 10), Entry('l', "m/g", "f"),
                              Entry('l', "m/sub/h", "../f")};
  EXPECT_TRUE(CheckTarEntries(ok, policy).ok()) << CheckTarEntries(ok, policy);
}

TEST(TarListingTest, RefusesWhatCouldLandOutside) {
  TarPolicy policy;
  const std::vector<std::pair<std::vector<TarEntry>, std::string>> cases = {
      {{Entry('-', "/etc/cron.d/x")}, "absolute"},
      {{Entry('-', "m/../../etc/x")}, "'..'"},
      {{Entry('-', "..")}, "'..'"},
      {{Entry('l', "m/out", "/etc")}, "leads out, to /etc"},
      {{Entry('l', "m/out", "../../etc")}, "leads out"},
      {{Entry('l', "m/dir", "sub"), Entry('-', "m/dir/x")}, "beneath the symbolic link m/dir"},
      {{Entry('l', "m/dir", "sub"), Entry('d', "m/dir/a/")}, "beneath the symbolic link"},
      {{Entry('-', "m/f"), Entry('h', "m/h", "m/f")}, "is a hard link"},
      {{Entry('c', "dev/null")}, "no file, directory or link (type 'c')"},
      {{Entry('b', "dev/sda")}, "type 'b'"},
      {{Entry('p', "fifo")}, "type 'p'"},
      {{Entry('l', "", "/")}, "in place of the archive's top"},
      {{Entry('l', "m/x", "")}, "to nothing"},
  };
  for (const auto& [entries, why] : cases) {
    absl::Status st = CheckTarEntries(entries, policy);
    ASSERT_FALSE(st.ok()) << why;
    EXPECT_NE(st.message().find(why), std::string::npos) << st;
  }
}

TEST(TarListingTest, ARootsPolicyTakesAbsoluteTargetsAndHardLinksWithin) {
  TarPolicy policy;
  policy.absolute_link_targets = true;
  policy.hard_links = true;
  std::vector<TarEntry> ok = {Entry('l', "r/dev/fd", "/proc/self/fd"), Entry('-', "r/a", "", 5),
                              Entry('h', "r/b", "r/a", 0)};
  EXPECT_TRUE(CheckTarEntries(ok, policy).ok()) << CheckTarEntries(ok, policy);
  // Still never written through, and a hard link only to an earlier file of the archive.
  EXPECT_FALSE(
      CheckTarEntries({Entry('l', "r/etc", "/etc"), Entry('-', "r/etc/passwd")}, policy).ok());
  EXPECT_FALSE(CheckTarEntries({Entry('h', "r/b", "/etc/shadow")}, policy).ok());
  EXPECT_FALSE(CheckTarEntries({Entry('h', "r/b", "r/later"), Entry('-', "r/later")}, policy).ok());
  EXPECT_FALSE(CheckTarEntries({Entry('l', "r/x", "../../..")}, policy).ok());
}

TEST(TarListingTest, SizeAndCountAreBounded) {
  TarPolicy policy;
  policy.max_bytes = 100;
  policy.max_entries = 3;
  absl::Status big = CheckTarEntries({Entry('-', "a", "", 60), Entry('-', "b", "", 41)}, policy);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.message().find("unpacks to 101 bytes, over 100"), std::string::npos) << big;
  absl::Status many = CheckTarEntries(
      {Entry('d', "a/"), Entry('d', "b/"), Entry('d', "c/"), Entry('d', "d/")}, policy);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.message().find("4 members, over 3"), std::string::npos) << many;
}

// Real archives, as GNU tar writes them: -P keeps an absolute name and a leading "../".
TEST(TarListingTest, ListsAndJudgesArchivesTarMade) {
  std::optional<std::string> tar = FindExecutable("tar", kSafePath);
  ASSERT_TRUE(tar.has_value());
  TempDir dir;
  dir.Write("m/f", "hello\n");
  dir.Write("m/sub/g", "");
  ASSERT_EQ(symlink("../f", (dir.path() / "m/sub/link").c_str()), 0);
  const std::string d = dir.path().string();
  auto make = [&](const std::string& archive, const std::string& args) {
    const std::string cmd = "cd '" + d + "' && tar -c -P -f '" + archive + "' " + args;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  };
  make(d + "/good.tar", "m");
  absl::StatusOr<std::vector<TarEntry>> good = ListTarball(*tar, d + "/good.tar", "", TarPolicy{});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->size(), 5u);
  make(d + "/abs.tar", "'" + d + "/m/f'");
  absl::StatusOr<std::vector<TarEntry>> abs = ListTarball(*tar, d + "/abs.tar", "", TarPolicy{});
  ASSERT_FALSE(abs.ok());
  EXPECT_NE(abs.status().message().find("absolute"), std::string::npos) << abs.status();
  make(d + "/up.tar", "-C m ../m/f");
  absl::StatusOr<std::vector<TarEntry>> up = ListTarball(*tar, d + "/up.tar", "", TarPolicy{});
  ASSERT_FALSE(up.ok());
  EXPECT_NE(up.status().message().find("'..'"), std::string::npos) << up.status();
  dir.Write("junk.tar", "not a tar archive at all");
  absl::StatusOr<std::vector<TarEntry>> junk = ListTarball(*tar, d + "/junk.tar", "", TarPolicy{});
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.status().message().find("tar cannot read it"), std::string::npos) << junk.status();
}

}  // namespace
}  // namespace fsmove::exec

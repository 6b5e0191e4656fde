// AccessMap on its own: Intern gives each path one id and keeps its bytes; Record keeps one
// access per (path, block, effect), listings apart, the strongest and the first among equals,
// both while a path's list is scanned and once it is longer than kScannedAccesses (8) and
// indexed; records() counts every call. AccessStrength ranks evidence as its comment says.
#include "fsmove/analysis/access_map.h"

#include <gtest/gtest.h>

#include <string>

namespace fsmove::analysis {
namespace {

using fstrace::Effect;

Access Make(BlockId block, Effect effect, uint64_t line) {
  Access a;
  a.block = block;
  a.effect = effect;
  a.line = line;
  return a;
}

Access Shallow(Access a) {
  a.shallow = true;
  return a;
}

Access Failed(Access a) {
  a.failed = true;
  return a;
}

Access Listing(Access a) {
  a.listing = true;
  return a;
}

// The access kept for (block, effect, listing) of `path`; null if none.
const Access* Kept(const AccessMap& m, PathId path, BlockId block, Effect effect,
                   bool listing = false) {
  const Access* found = nullptr;
  for (const Access& a : m.accesses(path)) {
    if (a.block == block && a.effect == effect && a.listing == listing) {
      EXPECT_EQ(found, nullptr) << "two accesses kept for block " << block;
      found = &a;
    }
  }
  return found;
}

TEST(AccessMapTest, InternGivesEachPathOneId) {
  AccessMap m;
  EXPECT_EQ(m.path_count(), 0u);
  PathId a = m.Intern("/etc/a");
  PathId b = m.Intern("/etc/b");
  EXPECT_NE(a, b);
  // The same bytes from another buffer are the same path.
  std::string again = std::string("/etc/") + "a";
  EXPECT_EQ(m.Intern(again), a);
  EXPECT_EQ(m.path_count(), 2u);
  EXPECT_EQ(m.path(a), "/etc/a");
  EXPECT_EQ(m.path(b), "/etc/b");
  EXPECT_TRUE(m.accesses(a).empty());
  // A prefix is another path.
  PathId prefix = m.Intern("/etc/");
  EXPECT_NE(prefix, a);
  EXPECT_EQ(m.path(prefix), "/etc/");
}

// The map copies the bytes: the caller's buffer may change or go.
TEST(AccessMapTest, InternKeepsItsOwnCopy) {
  AccessMap m;
  std::string buf = "/var/lib/x";
  PathId id = m.Intern(buf);
  buf.assign("/overwritten");
  EXPECT_EQ(m.path(id), "/var/lib/x");
  EXPECT_EQ(m.Intern("/var/lib/x"), id);
  EXPECT_NE(m.Intern(buf), id);
}

// Paths are stored in 1 MiB chunks; a path longer than a chunk, and the paths interned after
// a chunk filled up, must keep their bytes and ids (views into earlier chunks stay valid).
TEST(AccessMapTest, InternSurvivesChunkBoundariesAndLongPaths) {
  AccessMap m;
  std::string huge(3u << 20, 'x');
  huge[0] = '/';
  std::vector<PathId> ids;
  ids.reserve(20000);
  for (int i = 0; i < 20000; ++i)
    ids.push_back(
        m.Intern("/some/longish/path/number/" + std::to_string(i) + std::string(40, 'p')));
  PathId huge_id = m.Intern(huge);
  PathId after = m.Intern("/after");
  EXPECT_EQ(m.path(huge_id), huge);
  EXPECT_EQ(m.path(after), "/after");
  for (int i = 0; i < 20000; i += 997) {
    std::string p = "/some/longish/path/number/" + std::to_string(i) + std::string(40, 'p');
    EXPECT_EQ(m.path(ids[i]), p);
    EXPECT_EQ(m.Intern(p), ids[i]);
  }
  EXPECT_EQ(m.path_count(), 20002u);
}

TEST(AccessMapTest, InternOfTheEmptyPath) {
  AccessMap m;
  PathId empty = m.Intern("");
  EXPECT_EQ(m.path(empty), "");
  EXPECT_EQ(m.Intern(""), empty);
  EXPECT_NE(m.Intern("/"), empty);
}

TEST(AccessStrengthTest, RanksEvidenceAsDocumented) {
  // consumed: 3 content read, 2 a failed open or creation, 1 a lookup or a failed lookup.
  EXPECT_EQ(AccessStrength(Make(0, Effect::kConsumed, 1)), 3);
  EXPECT_EQ(AccessStrength(Failed(Make(0, Effect::kConsumed, 1))), 2);
  EXPECT_EQ(AccessStrength(Shallow(Make(0, Effect::kConsumed, 1))), 1);
  EXPECT_EQ(AccessStrength(Failed(Shallow(Make(0, Effect::kConsumed, 1)))), 1);
  // produced: 2 content or existence, 1 metadata only (failure does not matter).
  EXPECT_EQ(AccessStrength(Make(0, Effect::kProduced, 1)), 2);
  EXPECT_EQ(AccessStrength(Shallow(Make(0, Effect::kProduced, 1))), 1);
  EXPECT_EQ(AccessStrength(Failed(Make(0, Effect::kProduced, 1))), 2);
  // expunged: 2, whatever the flags.
  EXPECT_EQ(AccessStrength(Make(0, Effect::kExpunged, 1)), 2);
  EXPECT_EQ(AccessStrength(Shallow(Make(0, Effect::kExpunged, 1))), 2);
}

TEST(AccessMapTest, RecordKeepsOneAccessPerBlockAndEffect) {
  AccessMap m;
  PathId p = m.Intern("/etc/app.conf");
  m.Record(p, Make(1, Effect::kConsumed, 10));
  m.Record(p, Make(1, Effect::kConsumed, 11));  // same block, same effect: only counted
  m.Record(p, Make(1, Effect::kProduced, 12));  // another effect
  m.Record(p, Make(2, Effect::kConsumed, 13));  // another block
  m.Record(p, Make(1, Effect::kExpunged, 14));
  EXPECT_EQ(m.records(), 5u);
  ASSERT_EQ(m.accesses(p).size(), 4u);
  EXPECT_EQ(Kept(m, p, 1, Effect::kConsumed)->line, 10u);
  EXPECT_EQ(Kept(m, p, 1, Effect::kProduced)->line, 12u);
  EXPECT_EQ(Kept(m, p, 2, Effect::kConsumed)->line, 13u);
  EXPECT_EQ(Kept(m, p, 1, Effect::kExpunged)->line, 14u);
  // Another path's accesses are its own.
  PathId q = m.Intern("/etc/other");
  EXPECT_TRUE(m.accesses(q).empty());
  m.Record(q, Make(1, Effect::kConsumed, 20));
  EXPECT_EQ(m.accesses(q).size(), 1u);
  EXPECT_EQ(m.accesses(p).size(), 4u);
  EXPECT_EQ(m.records(), 6u);
}

// The evidence shown is the strongest: a stat first and a read later keeps the read; a
// read first and a stat later keeps the read; of two reads, the first.
TEST(AccessMapTest, RecordKeepsTheStrongestAndTheFirstAmongEquals) {
  AccessMap m;
  PathId p = m.Intern("/p");
  m.Record(p, Shallow(Make(1, Effect::kConsumed, 1)));
  m.Record(p, Failed(Make(1, Effect::kConsumed, 2)));
  EXPECT_EQ(Kept(m, p, 1, Effect::kConsumed)->line, 2u);
  m.Record(p, Make(1, Effect::kConsumed, 3));
  m.Record(p, Make(1, Effect::kConsumed, 4));           // equal: the first stays
  m.Record(p, Shallow(Make(1, Effect::kConsumed, 5)));  // weaker: ignored
  const Access* kept = Kept(m, p, 1, Effect::kConsumed);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->line, 3u);
  EXPECT_FALSE(kept->shallow);
  EXPECT_FALSE(kept->failed);
  EXPECT_EQ(m.accesses(p).size(), 1u);
  EXPECT_EQ(m.records(), 5u);
}

// A directory opened to list it is kept apart from other uses of it by the same block.
TEST(AccessMapTest, ListingsAreKeptApart) {
  AccessMap m;
  PathId d = m.Intern("/etc/app.d");
  m.Record(d, Shallow(Make(1, Effect::kConsumed, 1)));
  m.Record(d, Listing(Make(1, Effect::kConsumed, 2)));
  m.Record(d, Listing(Make(1, Effect::kConsumed, 3)));
  ASSERT_EQ(m.accesses(d).size(), 2u);
  EXPECT_EQ(Kept(m, d, 1, Effect::kConsumed, /*listing=*/false)->line, 1u);
  EXPECT_EQ(Kept(m, d, 1, Effect::kConsumed, /*listing=*/true)->line, 2u);
}

// kNoBlock (accesses outside any resource) is a block like the others.
TEST(AccessMapTest, AccessesOutsideAnyBlockAreKeptToo) {
  AccessMap m;
  PathId p = m.Intern("/p");
  m.Record(p, Make(kNoBlock, Effect::kProduced, 1));
  m.Record(p, Make(0, Effect::kProduced, 2));
  m.Record(p, Make(kNoBlock, Effect::kProduced, 3));
  ASSERT_EQ(m.accesses(p).size(), 2u);
  EXPECT_EQ(Kept(m, p, kNoBlock, Effect::kProduced)->line, 1u);
  EXPECT_EQ(Kept(m, p, 0, Effect::kProduced)->line, 2u);
}

// Many blocks touching one path (a shared directory): past 8 accesses the list is indexed.
// The same rules hold while the list is scanned, at the switch (8 and 9 entries) and after
// it, for accesses recorded before the switch and after it.
TEST(AccessMapTest, LongListsKeepTheSameRulesOnceIndexed) {
  constexpr BlockId kBlocks = 40;
  for (BlockId strengthen_at : {BlockId{7}, BlockId{8}, BlockId{9}, BlockId{20}}) {
    SCOPED_TRACE(strengthen_at);
    AccessMap m;
    m.Intern("/before");  // the path's id is not 0: keys of different paths must not mix
    PathId p = m.Intern("/shared");
    PathId other = m.Intern("/other");
    auto strengthen = [&](BlockId from, BlockId to) {
      for (BlockId b = from; b < to; ++b) {
        m.Record(p, Make(b, Effect::kConsumed, 1000 + b));  // stronger: replaces
        m.Record(p, Make(b, Effect::kConsumed, 2000 + b));  // equal: ignored
      }
    };
    // Weak first accesses, made stronger when the list holds `strengthen_at` of them.
    for (BlockId b = 0; b < strengthen_at; ++b) m.Record(p, Shallow(Make(b, Effect::kConsumed, b)));
    ASSERT_EQ(m.accesses(p).size(), strengthen_at);
    strengthen(0, strengthen_at);
    ASSERT_EQ(m.accesses(p).size(), strengthen_at);
    for (BlockId b = strengthen_at; b < kBlocks; ++b) {
      m.Record(p, Shallow(Make(b, Effect::kConsumed, b)));
    }
    strengthen(strengthen_at, kBlocks);
    for (BlockId b = 0; b < kBlocks; ++b) {
      m.Record(p, Make(b, Effect::kProduced, 3000 + b));  // another effect: added
      m.Record(p, Make(b, Effect::kProduced, 3500 + b));  // equal: ignored
    }
    // Another path with its blocks in the other order: its list positions differ from
    // the shared path's, so an index that mixed the two paths would point at wrong entries.
    for (BlockId b = kBlocks; b-- > 0;) {
      m.Record(other, Make(b, Effect::kConsumed, 4000 + b));
      m.Record(other, Make(b, Effect::kConsumed, 4500 + b));
    }
    EXPECT_EQ(m.accesses(p).size(), 2 * kBlocks);
    EXPECT_EQ(m.accesses(other).size(), kBlocks);
    for (BlockId b = 0; b < kBlocks; ++b) {
      const Access* c = Kept(m, p, b, Effect::kConsumed);
      ASSERT_NE(c, nullptr) << b;
      EXPECT_EQ(c->line, 1000 + b);
      const Access* w = Kept(m, p, b, Effect::kProduced);
      ASSERT_NE(w, nullptr) << b;
      EXPECT_EQ(w->line, 3000 + b);
      EXPECT_EQ(Kept(m, other, b, Effect::kConsumed)->line, 4000 + b);
    }
    EXPECT_EQ(m.records(), 7 * kBlocks);
  }
}

// Listings stay apart once the list is indexed, too.
TEST(AccessMapTest, ListingsStayApartOnceIndexed) {
  AccessMap m;
  PathId d = m.Intern("/d");
  for (BlockId b = 0; b < 12; ++b) m.Record(d, Make(b, Effect::kConsumed, b));
  m.Record(d, Listing(Make(3, Effect::kConsumed, 100)));
  m.Record(d, Listing(Make(3, Effect::kConsumed, 101)));
  m.Record(d, Make(3, Effect::kConsumed, 102));
  EXPECT_EQ(m.accesses(d).size(), 13u);
  EXPECT_EQ(Kept(m, d, 3, Effect::kConsumed, /*listing=*/false)->line, 3u);
  EXPECT_EQ(Kept(m, d, 3, Effect::kConsumed, /*listing=*/true)->line, 100u);
}

}  // namespace
}  // namespace fsmove::analysis

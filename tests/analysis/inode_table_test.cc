// InodeTable on its own, without strace text: names resolve through (directory inode, name),
// a rename moves a whole subtree, hard links keep an inode named after its primary name goes,
// inodes live on while referenced and are recycled once nothing refers to them, and
// AppendPath names only what is reachable from the root (deep paths; not the unknown root,
// not unnamed inodes, not cycles a corrupt trace could make).
#include "fsmove/analysis/inode_table.h"

#include <gtest/gtest.h>

#include <string>

namespace fsmove::analysis {
namespace {

std::string PathOf(const InodeTable& t, InodeId id) {
  std::string out;
  if (!t.AppendPath(id, &out)) return "<unnamed>";
  return out;
}

TEST(InodeTableTest, StartsWithTheRootAndTheUnknownRootAlive) {
  InodeTable t;
  EXPECT_NE(t.root(), kNoInode);
  EXPECT_NE(t.unknown_root(), kNoInode);
  EXPECT_NE(t.root(), t.unknown_root());
  EXPECT_EQ(t.live_inodes(), 2u);
  EXPECT_EQ(PathOf(t, t.root()), "/");
  // Paths below the unknown root (a working directory never seen set) cannot be named.
  EXPECT_EQ(PathOf(t, t.unknown_root()), "<unnamed>");
  EXPECT_EQ(PathOf(t, kNoInode), "<unnamed>");
}

TEST(InodeTableTest, LookupFindsOnlyWhatLookupOrCreateMade) {
  InodeTable t;
  EXPECT_EQ(t.Lookup(t.root(), "etc"), kNoInode);
  InodeId etc = t.LookupOrCreate(t.root(), "etc");
  EXPECT_NE(etc, kNoInode);
  EXPECT_EQ(t.Lookup(t.root(), "etc"), etc);
  EXPECT_EQ(t.LookupOrCreate(t.root(), "etc"), etc);  // no second inode for the same name
  EXPECT_EQ(t.live_inodes(), 3u);
  // The name is per directory: etc/etc is another inode.
  InodeId inner = t.LookupOrCreate(etc, "etc");
  EXPECT_NE(inner, etc);
  EXPECT_EQ(t.parent(inner), etc);
  EXPECT_EQ(t.name(inner), "etc");
  EXPECT_TRUE(t.has_children(etc));
  EXPECT_FALSE(t.has_children(inner));
  EXPECT_EQ(PathOf(t, inner), "/etc/etc");
}

// LookupOrCreate remembers its last answers: what it remembers must follow every change of
// the namespace, and a hard link's other name must not be answered with the primary one.
TEST(InodeTableTest, LookupOrCreateFollowsEveryChangeOfAName) {
  InodeTable t;
  InodeId dir = t.LookupOrCreate(t.root(), "dir");
  InodeId a = t.LookupOrCreate(dir, "a");
  EXPECT_EQ(t.LookupOrCreate(dir, "a"), a);
  t.Bind(dir, "b", a);  // a hard link: two names, one primary
  EXPECT_EQ(t.LookupOrCreate(dir, "b"), a);
  EXPECT_EQ(t.LookupOrCreate(dir, "b"), a);
  ASSERT_EQ(t.Unbind(dir, "a"), a);  // "b" becomes the primary name
  InodeId again = t.LookupOrCreate(dir, "a");
  EXPECT_NE(again, a);
  EXPECT_EQ(t.LookupOrCreate(dir, "b"), a);
  InodeId c = t.LookupOrCreate(dir, "c");
  t.Bind(dir, "b", c);  // a rename over "b": its old inode, unreferenced, is freed
  EXPECT_EQ(t.LookupOrCreate(dir, "b"), c);
  EXPECT_EQ(t.LookupOrCreate(dir, "c"), c);
  ASSERT_EQ(t.Unbind(dir, "c"), c);
  EXPECT_EQ(t.LookupOrCreate(dir, "b"), c);
  EXPECT_EQ(PathOf(t, c), "/dir/b");
}

TEST(InodeTableTest, AppendPathAppendsToWhatIsThere) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.LookupOrCreate(t.root(), "a"), "b");
  std::string out = "prefix:";
  ASSERT_TRUE(t.AppendPath(f, &out));
  EXPECT_EQ(out, "prefix:/a/b");
}

// rename(/a, /c): the subtree below follows, because children are named by their parent's
// inode, not by a path.
TEST(InodeTableTest, RenamingADirectoryMovesItsSubtree) {
  InodeTable t;
  InodeId a = t.LookupOrCreate(t.root(), "a");
  InodeId file = t.LookupOrCreate(t.LookupOrCreate(a, "b"), "file");
  ASSERT_EQ(t.Unbind(t.root(), "a"), a);
  t.Bind(t.root(), "c", a);
  EXPECT_EQ(t.Lookup(t.root(), "a"), kNoInode);
  EXPECT_EQ(t.Lookup(t.root(), "c"), a);
  EXPECT_EQ(PathOf(t, file), "/c/b/file");
}

// rename over an existing file: the old inode loses the name and, referenced by nothing,
// is recycled.
TEST(InodeTableTest, BindOverANameReplacesAndFreesTheOldInode) {
  InodeTable t;
  InodeId old = t.LookupOrCreate(t.root(), "conf");
  InodeId fresh = t.NewAnonymous();
  EXPECT_EQ(PathOf(t, fresh), "<unnamed>");
  EXPECT_EQ(t.live_inodes(), 4u);
  t.Bind(t.root(), "conf", fresh);
  EXPECT_EQ(t.Lookup(t.root(), "conf"), fresh);
  EXPECT_EQ(PathOf(t, fresh), "/conf");
  EXPECT_EQ(t.live_inodes(), 3u);  // `old` is gone
  EXPECT_EQ(PathOf(t, old), "<unnamed>");
  // Binding the same inode again changes nothing.
  t.Bind(t.root(), "conf", fresh);
  EXPECT_EQ(t.live_inodes(), 3u);
  EXPECT_EQ(t.Lookup(t.root(), "conf"), fresh);
}

// An open file that was deleted keeps its inode until the last reference goes; its id is
// then reused.
TEST(InodeTableTest, AnUnlinkedInodeLivesWhileReferenced) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.root(), "tmp");
  t.Ref(f);
  EXPECT_EQ(t.Unbind(t.root(), "tmp"), f);
  EXPECT_EQ(t.live_inodes(), 3u);
  EXPECT_EQ(PathOf(t, f), "<unnamed>");  // alive but nameless
  t.Unref(f);
  EXPECT_EQ(t.live_inodes(), 2u);
  // Unref of an unreferenced inode frees it; a count that wrapped would keep it forever.
  InodeId g = t.NewAnonymous();
  EXPECT_EQ(g, f);  // the freed id is recycled
  t.Unref(g);
  EXPECT_EQ(t.live_inodes(), 2u);
}

TEST(InodeTableTest, UnbindOfAnUnknownNameReturnsNoInode) {
  InodeTable t;
  EXPECT_EQ(t.Unbind(t.root(), "missing"), kNoInode);
  EXPECT_EQ(t.live_inodes(), 2u);
}

// A directory with children stays alive when its name goes (an open working directory
// does too); once its last child goes and nothing refers to it, it is freed.
TEST(InodeTableTest, AnUnnamedDirectoryIsFreedWithItsLastChild) {
  InodeTable t;
  InodeId dir = t.LookupOrCreate(t.root(), "d");
  InodeId child = t.LookupOrCreate(dir, "f");
  ASSERT_EQ(t.Unbind(t.root(), "d"), dir);
  EXPECT_EQ(t.live_inodes(), 4u);
  EXPECT_EQ(t.Lookup(dir, "f"), child);
  EXPECT_EQ(PathOf(t, child), "<unnamed>");
  ASSERT_EQ(t.Unbind(dir, "f"), child);
  EXPECT_EQ(t.live_inodes(), 2u);
}

// The root and the unknown root are pinned: emptying them frees nothing.
TEST(InodeTableTest, TheRootsAreNeverFreed) {
  InodeTable t;
  t.LookupOrCreate(t.root(), "x");
  t.LookupOrCreate(t.unknown_root(), "y");
  t.Unbind(t.root(), "x");
  t.Unbind(t.unknown_root(), "y");
  t.Ref(t.root());
  t.Unref(t.root());
  EXPECT_EQ(t.live_inodes(), 2u);
  EXPECT_EQ(PathOf(t, t.root()), "/");
  EXPECT_NE(t.NewAnonymous(), t.root());
}

TEST(InodeTableTest, PathsBelowTheUnknownRootCannotBeNamed) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.LookupOrCreate(t.unknown_root(), "sub"), "f");
  EXPECT_EQ(PathOf(t, f), "<unnamed>");
  // Moved into the known tree, it has a path again.
  InodeId sub = t.Unbind(t.unknown_root(), "sub");
  t.Bind(t.root(), "sub", sub);
  EXPECT_EQ(PathOf(t, f), "/sub/f");
}

// link(/a, /b) then unlink(/a): the inode is named /b from then on.
TEST(InodeTableTest, AHardLinkBecomesThePrimaryNameWhenTheFirstGoes) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.root(), "a");
  InodeId dir = t.LookupOrCreate(t.root(), "dir");
  t.Bind(dir, "b", f);
  EXPECT_EQ(PathOf(t, f), "/a");  // the first name stays primary while it exists
  ASSERT_EQ(t.Unbind(t.root(), "a"), f);
  EXPECT_EQ(t.parent(f), dir);
  EXPECT_EQ(PathOf(t, f), "/dir/b");
  ASSERT_EQ(t.Unbind(dir, "b"), f);
  EXPECT_EQ(PathOf(t, f), "<unnamed>");
  EXPECT_EQ(t.live_inodes(), 3u);  // root, unknown root, dir
}

// Removing the secondary name keeps the primary one, and the removed name is not promoted
// later when the primary goes (it was the newest, the one promoted first if kept).
TEST(InodeTableTest, UnbindingASecondaryNameForgetsIt) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.root(), "a");
  t.Bind(t.root(), "c", f);
  t.Bind(t.root(), "b", f);
  ASSERT_EQ(t.Unbind(t.root(), "b"), f);
  EXPECT_EQ(PathOf(t, f), "/a");
  ASSERT_EQ(t.Unbind(t.root(), "a"), f);
  EXPECT_EQ(PathOf(t, f), "/c");
}

// rename over a hard link's primary name: the inode keeps its other name.
TEST(InodeTableTest, ReplacingAPrimaryNamePromotesTheOtherName) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.root(), "a");
  t.Bind(t.root(), "b", f);
  InodeId other = t.NewAnonymous();
  t.Bind(t.root(), "a", other);
  EXPECT_EQ(PathOf(t, other), "/a");
  EXPECT_EQ(PathOf(t, f), "/b");
  // And rename over the secondary name: the primary stays, the secondary is forgotten.
  InodeId g = t.LookupOrCreate(t.root(), "g1");
  t.Bind(t.root(), "g2", g);
  t.Bind(t.root(), "g2", t.NewAnonymous());
  EXPECT_EQ(PathOf(t, g), "/g1");
  t.Ref(g);  // kept alive, so that a stale "g2" would show as its path
  ASSERT_EQ(t.Unbind(t.root(), "g1"), g);
  EXPECT_EQ(PathOf(t, g), "<unnamed>");
}

// link() of a name onto the inode it already names changes nothing, whether that name is
// the primary one or a secondary one.
TEST(InodeTableTest, RebindingANameToItsOwnInodeKeepsEveryName) {
  InodeTable t;
  InodeId f = t.LookupOrCreate(t.root(), "a");
  t.Bind(t.root(), "b", f);
  t.Bind(t.root(), "a", f);
  t.Bind(t.root(), "b", f);
  EXPECT_EQ(t.live_inodes(), 3u);
  EXPECT_EQ(PathOf(t, f), "/a");
  t.Ref(f);  // kept alive when its names go, so that its path shows which name it has
  ASSERT_EQ(t.Unbind(t.root(), "a"), f);
  EXPECT_EQ(PathOf(t, f), "/b");
  ASSERT_EQ(t.Unbind(t.root(), "b"), f);
  EXPECT_EQ(PathOf(t, f), "<unnamed>");
  t.Unref(f);
  EXPECT_EQ(t.live_inodes(), 2u);
}

TEST(InodeTableTest, SymlinksKeepTheirTargetAndWhetherTheyWereLearned) {
  InodeTable t;
  InodeId plain = t.LookupOrCreate(t.root(), "plain");
  InodeId made = t.LookupOrCreate(t.root(), "made");
  InodeId learned = t.LookupOrCreate(t.root(), "learned");
  t.SetSymlink(made, "/target/one");
  t.SetSymlink(learned, "../two", /*learned=*/true);
  EXPECT_EQ(t.symlink(plain), nullptr);
  EXPECT_FALSE(t.symlink_learned(plain));
  ASSERT_NE(t.symlink(made), nullptr);
  EXPECT_EQ(*t.symlink(made), "/target/one");
  EXPECT_FALSE(t.symlink_learned(made));
  ASSERT_NE(t.symlink(learned), nullptr);
  EXPECT_EQ(*t.symlink(learned), "../two");
  EXPECT_TRUE(t.symlink_learned(learned));
  // A recycled inode does not inherit the symlink of the inode that had its id.
  ASSERT_EQ(t.Unbind(t.root(), "learned"), learned);
  InodeId reused = t.NewAnonymous();
  ASSERT_EQ(reused, learned);
  EXPECT_EQ(t.symlink(reused), nullptr);
  EXPECT_FALSE(t.symlink_learned(reused));
}

// AppendPath keeps 64 components on the stack and the rest in a vector: both sides of the
// switch must give the whole path in order.
TEST(InodeTableTest, AppendPathNamesDeepPaths) {
  for (int depth : {63, 64, 65, 200}) {
    InodeTable t;
    InodeId cur = t.root();
    std::string expected;
    for (int i = 0; i < depth; ++i) {
      std::string name = "d" + std::to_string(i);
      cur = t.LookupOrCreate(cur, name);
      expected += "/" + name;
    }
    EXPECT_EQ(PathOf(t, cur), expected) << depth << " components";
  }
}

// A corrupt trace can move a directory below its own child; AppendPath must stop, not loop.
TEST(InodeTableTest, AppendPathRefusesACycle) {
  InodeTable t;
  InodeId a = t.LookupOrCreate(t.root(), "a");
  InodeId b = t.LookupOrCreate(a, "b");
  ASSERT_EQ(t.Unbind(t.root(), "a"), a);
  t.Bind(b, "a", a);  // a -> b -> a
  std::string out;
  EXPECT_FALSE(t.AppendPath(b, &out));
  EXPECT_FALSE(t.AppendPath(a, &out));
}

}  // namespace
}  // namespace fsmove::analysis

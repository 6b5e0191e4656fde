// Tests for the construct factories and the JSON form `fsmove trace dump --fstrace` prints.
#include "fsmove/fstrace/construct.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::fstrace {
namespace {

TEST(ConstructTest, FactoriesSetTheirKindsFields) {
  Construct name = make::NameEffect(3, "a", Effect::kExpunged);
  EXPECT_EQ(name.op, Op::kHPathSym);
  EXPECT_TRUE(name.record_only);
  EXPECT_EQ(make::HPath(kAtFdcwd, "/x", Effect::kProduced, true).op, Op::kHPath);
  Construct sym = make::Symlink("target", 4, "link");
  EXPECT_EQ(sym.dirfd, kAtFdcwd);  // the target is text, not looked up
  EXPECT_EQ(sym.dirfd2, 4);
  EXPECT_EQ(sym.path2, "link");
}

TEST(ConstructTest, JsonNamesTheFieldsOfEachKind) {
  EXPECT_EQ(ConstructToJson(make::HPath(kAtFdcwd, "/etc/x", Effect::kProduced, false)).dump(),
            R"({"dirfd":-100,"effect":"produced","op":"hpathsym","path":"/etc/x"})");
  EXPECT_EQ(ConstructToJson(make::AnonFd(5, true)).dump(),
            R"({"anonymous":true,"fd":5,"op":"newfd"})");
  EXPECT_EQ(ConstructToJson(make::NewFd(3, "f", 6, false, true, false)).dump(),
            R"({"dirfd":3,"fd":6,"op":"newfd","path":"f"})");
  EXPECT_EQ(ConstructToJson(make::DupFd(3, 4, false)).dump(), R"({"fd":3,"fd2":4,"op":"dupfd"})");
  EXPECT_EQ(ConstructToJson(make::NewProc(42, kCloneFiles | kCloneThread)).dump(),
            R"({"child":42,"op":"newproc","share_cwd":false,"share_fds":true,"thread":true})");
  EXPECT_EQ(ConstructToJson(make::Rename(kAtFdcwd, "a", 7, "b", false)).dump(),
            R"({"dirfd":-100,"dirfd2":7,"op":"rename","path":"a","path2":"b"})");
  EXPECT_EQ(ConstructToJson(make::SetCwd(5, "", true)).dump(),
            R"({"dirfd":5,"op":"setcwd","path":""})");
  EXPECT_EQ(ConstructToJson(make::Exec("")).dump(), R"({"op":"exec"})");
}

}  // namespace
}  // namespace fsmove::fstrace

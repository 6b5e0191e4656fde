// Duplicate keys in JSON documents: found per object, with the second occurrence's offset.
#include "fsmove/base/json_keys.h"

#include <gtest/gtest.h>

namespace fsmove::base {
namespace {

TEST(JsonKeysTest, FindsTheRepeatedKeyOfOneObject) {
  std::string_view text = R"({"a": 1, "b": {"a": 2}, "a": 3})";
  auto dup = FindDuplicateKey(text);
  ASSERT_TRUE(dup.has_value());
  EXPECT_EQ(dup->key, "a");
  EXPECT_EQ(dup->offset, text.rfind("\"a\""));
}

TEST(JsonKeysTest, SameKeysInDifferentObjectsAndStringsThatLookLikeKeys) {
  EXPECT_FALSE(FindDuplicateKey(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})").has_value());
  EXPECT_FALSE(FindDuplicateKey(R"({"a": "a", "b": ["a", "a"], "c": "x\"a"})").has_value());
  EXPECT_FALSE(FindDuplicateKey(R"({"a\"": 1, "a": 2})").has_value());
  EXPECT_FALSE(FindDuplicateKey(R"([1, 2, {"k": 1}, {"k": 2}])").has_value());
}

TEST(JsonKeysTest, StartOffsetSkipsALogLine) {
  std::string_view text = "Notice: \"x\": \"x\"\n{\"r\": [], \"r\": []}";
  auto dup = FindDuplicateKey(text, text.find('{'));
  ASSERT_TRUE(dup.has_value());
  EXPECT_EQ(dup->key, "r");
}

}  // namespace
}  // namespace fsmove::base

#include "fsmove/matrix/matrix_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::matrix {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MatrixFileTest, RowsOfOneToThreeColumnsWithCommentsAndDashes) {
  auto rows = ParseMatrix(
      "# node  class  facts\n"
      "\n"
      "web01.example.com  role::web  facts/web01.json   # the web tier\n"
      "web02.example.com\t-\t/abs/web02.yaml\r\n"
      "db01.example.com ::role::db\n"
      "lab01 - -\n",
      "ci/matrix.txt");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(*rows,
              ElementsAre(MatrixRow{3, "web01.example.com", "role::web", "ci/facts/web01.json"},
                          MatrixRow{4, "web02.example.com", "", "/abs/web02.yaml"},
                          MatrixRow{5, "db01.example.com", "::role::db", ""},
                          MatrixRow{6, "lab01", "", ""}));
  EXPECT_EQ(RowName((*rows)[0]), "web01.example.com (role::web)");
  EXPECT_EQ(RowName((*rows)[3]), "lab01");
}

TEST(MatrixFileTest, FactsPathsOfAFileInTheCurrentDirectoryStayAsGiven) {
  auto rows = ParseMatrix("web01 - facts/web01.json\n", "matrix.txt");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].facts, "facts/web01.json");
}

TEST(MatrixFileTest, BadRowsNameTheFileAndLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"web01 - a b\n", "m.txt:1: 4 columns; a row is NODE [CLASS [FACTS]]"},
      {"\nWeb01\n", "m.txt:2: Web01: not a node name Puppet takes"},
      {"../etc\n", "m.txt:1: ../etc: not a node name"},
      {"a/b\n", "m.txt:1: a/b: not a node name"},
      {"-rf\n", "m.txt:1: -rf: not a node name"},
      {"web01 Role::Web\n", "m.txt:1: Role::Web: not a Puppet class name"},
      {"web01 role::web;x\n", "m.txt:1: role::web;x: not a Puppet class name"},
      {"a\nb\na\n", "m.txt:3: node a is on line 1 already"},
      {"# nothing\n\n", "m.txt: no row; each line is NODE [CLASS [FACTS]]"},
  };
  for (const Case& c : cases) {
    auto rows = ParseMatrix(c.text, "m.txt");
    ASSERT_FALSE(rows.ok()) << c.text;
    EXPECT_THAT(std::string(rows.status().message()), HasSubstr(c.error)) << c.text;
  }
}

TEST(MatrixFileTest, ReadMatrixSaysWhatItCannotRead) {
  auto rows = ReadMatrix("/nonexistent/matrix.txt");
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(std::string(rows.status().message()),
              HasSubstr("cannot read --matrix /nonexistent/matrix.txt"));
  auto dir = ReadMatrix("/");
  EXPECT_FALSE(dir.ok());
}

}  // namespace
}  // namespace fsmove::matrix

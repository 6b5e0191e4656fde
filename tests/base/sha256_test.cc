// SHA-256 against FIPS 180-4's examples and digests computed by Python's hashlib, around the
// padding boundaries (55/56/64 bytes) and for data fed in pieces.
#include "fsmove/base/sha256.h"

#include <gtest/gtest.h>

#include <string>

#include "fmt/format.h"

namespace fsmove::testing {
namespace {

std::string Bytes(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(i));
  return s;
}

TEST(Sha256Test, FipsExamples) {
  EXPECT_EQ(base::Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(base::Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(base::Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(base::Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, PaddingBoundaries) {
  const std::pair<size_t, const char*> cases[] = {
      {55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"},
      {56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"},
      {63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"},
      {64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"},
      {65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"},
      {119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"},
      {120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"},
      {128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"},
  };
  for (const auto& [n, digest] : cases) EXPECT_EQ(base::Sha256Hex(Bytes(n)), digest) << n;
}

TEST(Sha256Test, PiecesGiveTheSameDigest) {
  std::string data = Bytes(200);
  std::string whole = base::Sha256Hex(data);
  for (size_t step : {1, 7, 55, 63, 64, 65, 130}) {
    base::Sha256 sha;
    for (size_t i = 0; i < data.size(); i += step)
      sha.Update(std::string_view(data).substr(i, step));
    std::string hex;
    for (uint8_t b : sha.Finish()) hex += fmt::format("{:02x}", b);
    EXPECT_EQ(hex, whole) << "step " << step;
  }
}

}  // namespace
}  // namespace fsmove::testing

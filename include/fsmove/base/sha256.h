// SHA-256 (FIPS 180-4), for fingerprints that must stay the same on every machine and every
// release: std::hash and absl::Hash are seeded or unspecified, and a 64-bit FNV collides.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fsmove::base {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  std::array<uint8_t, 32> Finish();  // the object must not be updated afterwards
  std::string FinishHex();           // Finish(), in lower-case hexadecimal

 private:
  void Block(const uint8_t* p);

  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes
};

// Lower-case hexadecimal digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace fsmove::base

// A fast hash of short byte strings for the analysis's hot tables (path components, whole
// paths): one 64x64->128-bit multiply per 8 bytes, where absl's string hash costs several times
// that on the 20-80 byte paths of a trace. Not for untrusted keys an attacker picks to collide.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace fsmove::base {

namespace byte_hash_internal {
inline uint64_t Load8(const char* p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}
inline uint64_t Load4(const char* p) {
  uint32_t w;
  memcpy(&w, p, 4);
  return w;
}
// Both halves of the 128-bit product folded: every input bit reaches every output bit.
inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
}
}  // namespace byte_hash_internal

// The hash of `bytes`, starting from `seed` (a table's own key part, such as a directory's id).
inline uint64_t HashBytes(std::string_view bytes, uint64_t seed = 0) {
  using byte_hash_internal::Load4;
  using byte_hash_internal::Load8;
  using byte_hash_internal::Mix;
  constexpr uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull,
                     k2 = 0x8ebc6af09c88c6e3ull;
  const char* p = bytes.data();
  size_t n = bytes.size();
  uint64_t h = Mix(seed ^ k0, (uint64_t{n} << 1 | 1) ^ k1);
  if (n > 8) {
    for (; n > 8; p += 8, n -= 8) h = Mix(h ^ Load8(p), k2);
    // The last 8 bytes, overlapping what the loop read: no byte-by-byte tail.
    h = Mix(h ^ Load8(p + n - 8), k1);
  } else if (n >= 4) {
    h = Mix(h ^ (Load4(p) << 32 | Load4(p + n - 4)), k1);
  } else if (n > 0) {
    const uint64_t a = static_cast<unsigned char>(p[0]), b = static_cast<unsigned char>(p[n / 2]),
                   c = static_cast<unsigned char>(p[n - 1]);
    h = Mix(h ^ (a << 16 | b << 8 | c), k1);
  }
  return Mix(h ^ k2, k0);
}

}  // namespace fsmove::base

// Syscall name -> row of the syscall table, on every line of a trace: a perfect hash. The
// seed of a short multiplicative hash of the name is chosen at start-up so that no two names
// of the table share a slot; a lookup is then one hash, one probe and one compare (an unknown
// name probes on to an empty slot, almost always the next: the table is 3% full). A
// general-purpose string hash here cost a quarter of the analysis of an unfiltered trace
// (perf).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace fsmove::fstrace {

class NameDispatch {
 public:
  // `names[0]` stands for "not in the table" and is never found; the others are the rows.
  // `names` must outlive the dispatch.
  void Build(const std::vector<std::string_view>& names);

  // The row of `name`, or 0.
  uint16_t Find(std::string_view name) const {
    for (size_t slot = Slot(name);; slot = (slot + 1) & kMask) {
      const uint16_t i = slots_[slot];
      if (i == 0) return 0;
      if (Equal((*names_)[i], name)) return i;
    }
  }

 private:
  static constexpr size_t kBits = 13;
  static constexpr size_t kMask = (size_t{1} << kBits) - 1;

  static bool Equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {  // names are short: no call to memcmp
      if (a[i] != b[i]) return false;
    }
    return true;
  }

  // No loop over the name: its length and its first and last eight bytes (four for names
  // shorter than eight), which tell every name of the table apart.
  size_t Slot(std::string_view name) const {
    const size_t n = name.size();
    uint64_t first = 0;
    uint64_t last = 0;
    if (n >= 8) {
      memcpy(&first, name.data(), 8);
      memcpy(&last, name.data() + n - 8, 8);
    } else if (n >= 4) {
      uint32_t f = 0;
      uint32_t l = 0;
      memcpy(&f, name.data(), 4);
      memcpy(&l, name.data() + n - 4, 4);
      first = f;
      last = l;
    } else {
      for (size_t i = 0; i < n; ++i)
        first |= uint64_t{static_cast<unsigned char>(name[i])} << (8 * i);
    }
    const uint64_t h = (first ^ seed_) * 0x9E3779B97F4A7C15ull + (last ^ n) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h >> (64 - kBits));  // the well-mixed high bits
  }

  // Fills the slots from row 1 on; true when every name got its own slot.
  bool TryFill(bool give_up_on_collision);

  const std::vector<std::string_view>* names_ = nullptr;
  uint64_t seed_ = 1;
  std::vector<uint16_t> slots_;
};

}  // namespace fsmove::fstrace

// The syscall table's name lookup; see name_dispatch.h.
#include "name_dispatch.h"

namespace fsmove::fstrace {

void NameDispatch::Build(const std::vector<std::string_view>& names) {
  names_ = &names;
  for (seed_ = 1; seed_ < 20000; ++seed_) {
    if (TryFill(/*give_up_on_collision=*/true)) return;
  }
  seed_ = 1;
  TryFill(false);  // none perfect (not seen): probing still finds every name
}

bool NameDispatch::TryFill(bool give_up_on_collision) {
  slots_.assign(size_t{1} << kBits, 0);
  bool perfect = true;
  for (size_t i = 1; i < names_->size(); ++i) {
    size_t slot = Slot((*names_)[i]);
    while (slots_[slot] != 0) {
      if (Equal((*names_)[slots_[slot]], (*names_)[i])) break;  // a repeated name
      perfect = false;
      slot = (slot + 1) & kMask;
    }
    if (slots_[slot] == 0) slots_[slot] = static_cast<uint16_t>(i);
    if (!perfect && give_up_on_collision) return false;
  }
  return perfect;
}

}  // namespace fsmove::fstrace

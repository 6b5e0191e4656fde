// errno to absl::Status; see errno_status.h.
#include "fsmove/base/errno_status.h"

#include "absl/strings/string_view.h"

namespace fsmove::base {

absl::Status ErrnoStatus(std::string_view what, int error) {
  // absl::ErrnoToStatus writes "what: strerror(error)" and picks the code from the errno.
  return absl::ErrnoToStatus(error, absl::string_view(what.data(), what.size()));
}

}  // namespace fsmove::base

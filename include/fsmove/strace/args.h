// Stage 2 of trace parsing: decodes the argument text of a modelled system call into
// arguments, C strings (as raw bytes), integers, flag sets and struct fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace fsmove::strace {

// The top-level arguments of a call, split on commas outside strings and brackets.
class ArgList {
 public:
  ArgList() = default;
  explicit ArgList(std::string_view args);
  // Splits the arguments of a call's text after "NAME(" (LineHead::rest) up to the parenthesis
  // that closes them, in the one pass that finds it: returns its index, FindArgsEnd's answer
  // (npos: none), and leaves the list as ArgList(rest.substr(0, index)) would be.
  size_t SplitUntilClose(std::string_view rest);
  // The list and SplitUntilClose's answer `close` for `rest`, appended to `out` as 32-bit
  // offsets into it (rest under 4 GiB): the closing parenthesis's index (UINT32_MAX: none), the
  // count, each argument's start and size. The threaded reader's first stage splits a call
  // so, in 4 bytes an offset; its second stage makes the list again without a scan.
  void SaveTo(std::string_view rest, size_t close, std::vector<uint32_t>* out) const;
  // Makes the list SaveTo kept for `rest`; returns what SplitUntilClose answered.
  size_t RestoreFrom(std::string_view rest, const uint32_t* saved);
  size_t size() const { return items_.size(); }
  std::string_view operator[](size_t i) const { return i < items_.size() ? items_[i] : ""; }
  // The argument at i, or the named field "name=value" for calls printed with names
  // (clone prints "child_stack=..., flags=...").
  std::string_view Named(std::string_view name) const;

 private:
  absl::InlinedVector<std::string_view, 6> items_;
};

// Decodes a quoted strace string ("..." with C, octal and hex escapes) into raw bytes.
// A following "..." means strace cut the string. Returns false if `token` is not a string.
bool DecodeString(std::string_view token, std::string* out, bool* truncated = nullptr);

// Decodes the first bytes of the quoted string at the start of `token`, at most `cap` of them,
// into out[0..returned): stops at the closing quote, the end of the text or `cap`, and reads
// no further. 0 if `token` is not a string.
size_t DecodeStringPrefix(std::string_view token, char* out, size_t cap);

// Parses a decimal, negative, hexadecimal (0x) or octal (0...) integer at the start of the
// token; "AT_FDCWD" (also in -X verbose form "-100 /* AT_FDCWD */") gives -100. Trailing
// decorations ("3</etc/x>") are ignored.
bool ParseInt(std::string_view token, int64_t* value);

// A named flag vocabulary, to read flag sets printed symbolically (O_WRONLY|O_CREAT),
// numerically (-X raw: 0x241) or both (-X verbose: 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */).
struct FlagName {
  std::string_view name;
  uint64_t value;
};
uint64_t ParseFlags(std::string_view token, const FlagName* names, size_t count);

template <size_t N>
uint64_t ParseFlags(std::string_view token, const FlagName (&names)[N]) {
  return ParseFlags(token, names, N);
}

// The value of `field=` inside a struct printed as {a=1, field=X|Y, ...}; empty if absent.
// Only the struct that opens the token is read: in `{flags=...} => {parent_tid=[7]}` (an
// in/out argument) that is the input struct.
std::string_view StructField(std::string_view struct_token, std::string_view field);

// The elements of an array printed as [a, b, c] (an abbreviated tail is the item "...").
absl::InlinedVector<std::string_view, 4> ArrayItems(std::string_view token);

}  // namespace fsmove::strace

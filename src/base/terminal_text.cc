// Untrusted text escaped for terminals and report formats; see terminal_text.h.
#include "fsmove/base/terminal_text.h"

#include <cstdint>

#include "fmt/format.h"

namespace fsmove::base {

Utf8Char DecodeUtf8(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return {lead, 1};
  size_t length;
  char32_t c;
  char32_t min;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, c = lead & 0x1F, min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, c = lead & 0x0F, min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, c = lead & 0x07, min = 0x10000;
  } else {
    return {};  // a continuation byte, an overlong lead (C0, C1) or past U+10FFFF (F5..FF)
  }
  if (i + length > text.size()) return {};
  for (size_t k = 1; k < length; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return {};
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {};
  return {c, length};
}

bool IsBidiControl(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

bool IsFormatControl(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || IsBidiControl(c) || c == 0x2028 || c == 0x2029;
}

namespace {

// TerminalSafe's loop; `keep_newlines` leaves "\n" as it is.
std::string Escape(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      out.push_back(static_cast<char>(byte));
      ++i;
      continue;
    }
    if (byte < 0x80) {
      switch (byte) {
        case '\n':
          out += keep_newlines ? "\n" : "\\n";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\r':
          out += "\\r";
          break;
        case 0x1B:
          out += "\\e";
          break;
        default:
          out += fmt::format("\\x{:02x}", byte);
      }
      ++i;
      continue;
    }
    const Utf8Char u = DecodeUtf8(text, i);
    if (u.length == 0) {
      out += fmt::format("\\x{:02x}", byte);
      ++i;
    } else if (IsFormatControl(u.code_point)) {
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(u.code_point));
      i += u.length;
    } else {
      out.append(text.substr(i, u.length));
      i += u.length;
    }
  }
  return out;
}

}  // namespace

std::string TerminalSafe(std::string_view text) { return Escape(text, false); }

std::string TerminalSafeLines(std::string_view text) { return Escape(text, true); }

bool IsTerminalSafe(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      ++i;
      continue;
    }
    if (byte < 0x80) return false;
    const Utf8Char u = DecodeUtf8(text, i);
    if (u.length == 0 || IsFormatControl(u.code_point)) return false;
    i += u.length;
  }
  return true;
}

std::string EscapeFormatControls(std::string_view text, std::string (*spell)(char32_t)) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const Utf8Char u = byte < 0x80 ? Utf8Char{} : DecodeUtf8(text, i);
    if (u.length != 0 && IsFormatControl(u.code_point)) {
      out += spell(u.code_point);
      i += u.length;
    } else {
      const size_t n = u.length != 0 ? u.length : 1;
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string JsonEscape(char32_t c) {
  return fmt::format("\\u{:04x}", static_cast<uint32_t>(c));  // all are in the BMP
}

std::string XmlCharRef(char32_t c) { return fmt::format("&#x{:04X};", static_cast<uint32_t>(c)); }

}  // namespace fsmove::base

// Fuzzes the fix layer's reading and editing of Puppet manifests (fsmove check --fix-diff
// reads the checked code, which may be anything): a text either parses or gets an error that
// names a line; for each `type { 'title':` body found, adding a `require` (and removing it
// again) gives text that parses again and still holds that body.
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "fsmove/fix/declaration_edit.h"
#include "fsmove/fix/puppet_source.h"
#include "fuzz_support.h"

namespace {

// The catalog's spelling of a declared type: file -> File, apache::vhost -> Apache::Vhost.
std::string CatalogType(std::string_view declared) {
  std::string out;
  bool upper = true;
  for (char c : declared) {
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = c == ':';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fsmove;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<fix::PuppetSource> source = fix::PuppetSource::Parse(text);
  if (!source.ok()) {
    FSMOVE_FUZZ_CHECK(std::string(source.status().message()).find("line") != std::string::npos);
    return 0;
  }
  const auto& tokens = source->tokens();
  int bodies = 0;
  for (size_t i = 0; i + 2 < tokens.size() && bodies < 8; ++i) {
    // `name {` followed by a literal title.
    if (tokens[i].kind != fix::TokenKind::kName || source->TokenText(i + 1) != "{" ||
        tokens[i + 2].kind != fix::TokenKind::kString || !tokens[i + 2].literal) {
      continue;
    }
    absl::StatusOr<fix::ResourceBody> body = source->FindResource(
        CatalogType(source->TokenText(i)), tokens[i + 2].value, tokens[i].line);
    if (!body.ok()) continue;
    ++bodies;
    FSMOVE_FUZZ_CHECK(body->open_token < body->close_token && body->close_token < tokens.size());
    absl::StatusOr<std::vector<fix::TextReplacement>> edits =
        fix::EditDeclaration(*source, *body, {{"require", "File['/fuzz']"}});
    if (!edits.ok()) continue;
    size_t previous_end = 0;
    for (const fix::TextReplacement& r : *edits) {
      FSMOVE_FUZZ_CHECK(r.begin <= r.end && r.end <= text.size() && r.begin >= previous_end);
      previous_end = r.end;
    }
    const std::string edited = fix::ApplyReplacements(text, *edits);
    absl::StatusOr<fix::PuppetSource> again = fix::PuppetSource::Parse(edited);
    FSMOVE_FUZZ_CHECK(again.ok());
    FSMOVE_FUZZ_CHECK(edited.find("File['/fuzz']") != std::string::npos);
  }
  return 0;
}

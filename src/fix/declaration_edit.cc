// Editing the relationship metaparameters of one resource body; see declaration_edit.h.
#include "fsmove/fix/declaration_edit.h"

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "fsmove/checker/checker.h"

namespace fsmove::fix {
namespace {

// An attribute of the body as the edit leaves it.
struct AttributeState {
  const Attribute* original = nullptr;  // null: a new attribute
  std::string name;
  std::vector<std::string> elements;  // the references, when parsed or new
  bool parsed = false;
  bool modified = false;
  bool removed = false;
  bool was_array = false;
};

bool LooksLikeReference(std::string_view text) {
  const size_t open = text.find('[');
  if (open == 0 || open == std::string_view::npos || text.back() != ']') return false;
  return std::isupper(static_cast<unsigned char>(text.front())) ||
         (text.starts_with("::") && text.size() > 2 &&
          std::isupper(static_cast<unsigned char>(text[2])));
}

// Whether anything but whitespace (a comment) lies between tokens first..last.
bool HasCommentBetween(const PuppetSource& s, size_t first, size_t last) {
  for (size_t t = first; t < last; ++t) {
    const size_t b = s.tokens()[t].end, e = s.tokens()[t + 1].begin;
    for (size_t i = b; i < e; ++i) {
      if (!absl::ascii_isspace(static_cast<unsigned char>(s.text()[i]))) return true;
    }
  }
  return false;
}

// The references an attribute's value lists: one, or an array of them.
absl::Status ParseElements(const PuppetSource& s, AttributeState& a) {
  const Attribute& at = *a.original;
  if (HasCommentBetween(s, at.value_first, at.value_last)) {
    return absl::FailedPreconditionError(
        absl::StrCat("its `", a.name, "` has a comment inside its value"));
  }
  const auto& tok = s.tokens();
  if (s.TokenText(at.value_first) == "[" && tok[at.value_first].match == at.value_last) {
    a.was_array = true;
    size_t first = at.value_first + 1;
    for (size_t t = first; t <= at.value_last; ++t) {
      const bool end = t == at.value_last;
      if (!end && tok[t].kind == TokenKind::kOpen) {
        t = tok[t].match;
        continue;
      }
      if (end || tok[t].kind == TokenKind::kComma) {
        if (t > first) a.elements.emplace_back(s.Slice(first, t - 1));
        first = t + 1;
      }
    }
  } else {
    a.elements.emplace_back(s.Slice(at.value_first, at.value_last));
  }
  for (const std::string& e : a.elements) {
    if (!LooksLikeReference(e)) {
      return absl::FailedPreconditionError(
          absl::StrCat("its `", a.name, "` holds `", e, "`, not a resource reference"));
    }
  }
  a.parsed = true;
  return absl::OkStatus();
}

bool HasKey(const std::vector<std::string>& elements, const std::string& key) {
  return std::any_of(elements.begin(), elements.end(),
                     [&](const std::string& e) { return ReferenceKey(e) == key; });
}

absl::Status ApplyChange(const PuppetSource& s, std::vector<AttributeState>& state,
                         const ReferenceChange& c) {
  const std::string key = ReferenceKey(c.reference);
  AttributeState* a = nullptr;
  for (AttributeState& x : state) {
    if (x.name == c.attribute && !x.removed) a = &x;
  }
  if (c.remove) {
    if (a == nullptr || a->original == nullptr) return absl::OkStatus();
    if (!a->parsed && !ParseElements(s, *a).ok()) return absl::OkStatus();  // left as it is
    const size_t before = a->elements.size();
    std::erase_if(a->elements, [&](const std::string& e) { return ReferenceKey(e) == key; });
    if (a->elements.size() != before) a->modified = true;
    if (a->elements.empty()) a->removed = true;
    return absl::OkStatus();
  }
  if (a == nullptr) {
    AttributeState fresh;
    fresh.name = c.attribute;
    fresh.parsed = true;
    fresh.modified = true;
    state.push_back(std::move(fresh));
    a = &state.back();
  }
  if (!a->parsed) {
    if (absl::Status st = ParseElements(s, *a); !st.ok()) return st;
  }
  if (HasKey(a->elements, key)) return absl::OkStatus();
  a->elements.push_back(c.reference);
  a->modified = true;
  return absl::OkStatus();
}

// Nothing but whitespace and comments before `token` on its line.
bool FirstOnLine(const PuppetSource& s, size_t token) {
  if (token == 0) return true;
  const Token& prev = s.tokens()[token - 1];
  return s.LineOf(prev.end - 1) < s.tokens()[token].line;
}

// The value: `A`, `[A, B]`, or one reference a line when it would not fit (or was so).
std::string RenderValue(const std::vector<std::string>& elements, std::string_view indent,
                        size_t arrow_column, bool multiline) {
  if (elements.size() == 1) return elements.front();
  std::string inline_value = absl::StrCat("[", absl::StrJoin(elements, ", "), "]");
  if (!multiline && arrow_column + 3 + inline_value.size() + 1 <= kMaxLineLength) {
    return inline_value;
  }
  std::string out = "[\n";
  for (const std::string& e : elements) absl::StrAppend(&out, std::string(indent), "  ", e, ",\n");
  absl::StrAppend(&out, std::string(indent), "]");
  return out;
}

struct Layout {
  bool own_lines = false;  // every attribute starts its own line
  std::string indent;      // of the attribute lines
  std::string newline = "\n";
  size_t arrow_column = 0;  // where `=>` goes in an own-lines body
};

Layout LayoutOf(const PuppetSource& s, const ResourceBody& body,
                const std::vector<AttributeState>& state) {
  Layout l;
  const auto& tok = s.tokens();
  l.newline = s.CrlfAt(tok[body.type_token].begin) ? "\r\n" : "\n";
  l.own_lines = !body.attributes.empty();
  for (const Attribute& a : body.attributes)
    l.own_lines = l.own_lines && FirstOnLine(s, a.name_token);
  if (l.own_lines) {
    l.indent = std::string(s.Indentation(tok[body.attributes.front().name_token].line));
  } else {
    l.indent = std::string(s.Indentation(tok[body.type_token].line)) + "  ";
  }
  size_t longest = 0;
  for (const AttributeState& a : state) {
    if (!a.removed) longest = std::max(longest, a.name.size());
  }
  l.arrow_column = l.indent.size() + longest + 1;
  return l;
}

std::string AttributeLine(const AttributeState& a, const Layout& l) {
  const std::string pad(l.arrow_column - l.indent.size() - a.name.size(), ' ');
  std::string value = RenderValue(a.elements, l.indent, l.arrow_column, false);
  absl::StrReplaceAll({{"\n", l.newline}}, &value);
  return absl::StrCat(l.indent, a.name, pad, "=> ", value, ",");
}

// The replacements for the attributes already there: realigned arrows, new values, removals.
void EditExisting(const PuppetSource& s, const std::vector<AttributeState>& state, const Layout& l,
                  std::vector<TextReplacement>* out) {
  const auto& tok = s.tokens();
  for (const AttributeState& a : state) {
    if (a.original == nullptr) continue;
    const Attribute& at = *a.original;
    const size_t last = at.comma_token ? *at.comma_token : at.value_last;
    if (a.removed) {
      if (FirstOnLine(s, at.name_token)) {
        const int end_line = tok[last].line;
        const size_t e = s.LineEnd(end_line);
        out->push_back({s.LineStart(tok[at.name_token].line), e < s.text().size() ? e + 1 : e, ""});
      } else {
        size_t e = tok[last].end;
        while (e < s.text().size() && s.text()[e] == ' ') ++e;
        out->push_back({tok[at.name_token].begin, e, ""});
      }
      continue;
    }
    if (l.own_lines && tok[at.name_token].line == tok[at.arrow_token].line) {
      const size_t name_end = tok[at.name_token].end;
      const size_t column = s.Column(name_end);
      const size_t want = l.arrow_column > column ? l.arrow_column - column : 1;
      if (tok[at.arrow_token].begin - name_end != want ||
          s.text().compare(name_end, want, std::string(want, ' ')) != 0) {
        out->push_back({name_end, tok[at.arrow_token].begin, std::string(want, ' ')});
      }
    }
    if (a.modified) {
      const bool multiline = tok[at.value_first].line != tok[at.value_last].line;
      std::string value = RenderValue(
          a.elements, s.Indentation(tok[at.name_token].line),
          l.own_lines ? l.arrow_column : s.Column(tok[at.arrow_token].begin), multiline);
      absl::StrReplaceAll({{"\n", l.newline}}, &value);
      out->push_back({tok[at.value_first].begin, tok[at.value_last].end, std::move(value)});
    }
  }
}

// The replacements adding the new attributes.
void AddNew(const PuppetSource& s, const ResourceBody& body,
            const std::vector<AttributeState>& state, const Layout& l,
            std::vector<TextReplacement>* out) {
  std::vector<const AttributeState*> fresh;
  for (const AttributeState& a : state) {
    if (a.original == nullptr) fresh.push_back(&a);
  }
  if (fresh.empty()) return;
  const auto& tok = s.tokens();
  std::string lines;
  if (body.attributes.empty() && body.end_token == body.close_token) {
    // `type { 'title': }`: the attributes on lines of their own, then the closing brace.
    for (const AttributeState* a : fresh) absl::StrAppend(&lines, l.newline, AttributeLine(*a, l));
    absl::StrAppend(&lines, l.newline, std::string(s.Indentation(tok[body.type_token].line)));
    out->push_back({tok[body.colon_token].end, tok[body.close_token].begin, lines});
    return;
  }
  if (!l.own_lines) {
    // One line: ", name => value" after the last attribute (or after the colon).
    std::string text;
    for (const AttributeState* a : fresh) {
      absl::StrAppend(&text, text.empty() && body.attributes.empty() ? " " : ", ", a->name, " => ",
                      RenderValue(a->elements, "", 0, false));
    }
    if (body.attributes.empty()) {
      out->push_back({tok[body.colon_token].end, tok[body.colon_token].end, text});
    } else if (body.attributes.back().comma_token) {
      const size_t c = tok[*body.attributes.back().comma_token].end;
      out->push_back({c, c, absl::StrCat(text.substr(1), ",")});
    } else {
      const size_t v = tok[body.attributes.back().value_last].end;
      out->push_back({v, v, text});
    }
    return;
  }
  const Attribute& last = body.attributes.back();
  if (tok[body.end_token].kind == TokenKind::kSemicolon && !last.comma_token) {
    // `name => value;` ending one title of several: the new lines go before the `;`.
    std::string text;
    for (const AttributeState* a : fresh) {
      std::string line = AttributeLine(*a, l);
      line.pop_back();  // its comma: the `;` ends the body
      absl::StrAppend(&text, ",", l.newline, line);
    }
    out->push_back({tok[last.value_last].end, tok[last.value_last].end, text});
    return;
  }
  // The last attribute left gets its trailing comma; the new lines follow the last one.
  const Attribute* last_kept = nullptr;
  for (const AttributeState& a : state) {
    if (a.original != nullptr && !a.removed) last_kept = a.original;
  }
  if (last_kept != nullptr && !last_kept->comma_token) {
    const size_t v = tok[last_kept->value_last].end;
    out->push_back({v, v, ","});
  }
  const size_t after_last = tok[last.comma_token ? *last.comma_token : last.value_last].end;
  const int line = s.LineOf(after_last - 1);
  const size_t e = s.LineEnd(line);
  for (const AttributeState* a : fresh) {
    absl::StrAppend(&lines, AttributeLine(*a, l), l.newline);
  }
  if (s.LineOf(tok[body.end_token].begin) == line) {
    // `  ensure => file }`: the new lines, then the closing brace on a line of its own.
    absl::StrAppend(&lines, std::string(s.Indentation(tok[body.type_token].line)));
    out->push_back({after_last, tok[body.end_token].begin, absl::StrCat(l.newline, lines)});
  } else if (e < s.text().size()) {
    out->push_back({e + 1, e + 1, lines});
  } else {
    lines.resize(lines.size() - l.newline.size());
    out->push_back({e, e, absl::StrCat(l.newline, lines)});
  }
}

}  // namespace

std::string ReferenceKey(std::string_view reference) {
  auto parsed = PuppetSource::Parse(std::string(reference));
  if (!parsed.ok())
    return std::string(
        absl::StripAsciiWhitespace(absl::string_view(reference.data(), reference.size())));
  std::string key;
  for (size_t i = 0; i < parsed->tokens().size(); ++i) {
    const Token& t = parsed->tokens()[i];
    if (t.kind == TokenKind::kName) {
      std::string_view w = parsed->TokenText(i);
      if (w.starts_with("::")) w.remove_prefix(2);
      key += absl::AsciiStrToLower(std::string(w));
    } else if (t.kind == TokenKind::kString && t.literal) {
      key += checker::SingleQuote(t.value);
    } else {
      key += parsed->TokenText(i);
    }
  }
  return key;
}

absl::StatusOr<std::vector<TextReplacement>> EditDeclaration(
    const PuppetSource& source, const ResourceBody& body,
    const std::vector<ReferenceChange>& changes) {
  std::vector<AttributeState> state;
  state.reserve(body.attributes.size() + changes.size());
  for (const Attribute& a : body.attributes) {
    AttributeState x;
    x.original = &a;
    x.name = a.name;
    state.push_back(std::move(x));
  }
  for (const ReferenceChange& c : changes) {
    if (absl::Status st = ApplyChange(source, state, c); !st.ok()) return st;
  }
  const Layout layout = LayoutOf(source, body, state);
  std::vector<TextReplacement> out;
  EditExisting(source, state, layout, &out);
  AddNew(source, body, state, layout, &out);
  std::stable_sort(out.begin(), out.end(), [](const TextReplacement& a, const TextReplacement& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].begin < out[i - 1].end) {
      return absl::InternalError("overlapping edits of one declaration");
    }
  }
  return out;
}

std::string ApplyReplacements(std::string_view text,
                              const std::vector<TextReplacement>& replacements) {
  std::string out;
  size_t at = 0;
  for (const TextReplacement& r : replacements) {
    out.append(text.substr(at, r.begin - at));
    out.append(r.text);
    at = r.end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace fsmove::fix

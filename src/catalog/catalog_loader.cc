// Turns catalog JSON text into a Catalog: validates the shape field by field while it is
// parsed, drops exported resources and indexes titles; CatalogLinker (catalog_linker.h) then
// resolves aliases, containment and relationships.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "catalog_linker.h"
#include "fsmove/base/json_reader.h"
#include "fsmove/base/read_file.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/catalog/file_path.h"
#include "fsmove/catalog/resource_ref.h"

namespace fsmove::catalog {
namespace {

using Json = nlohmann::json;

// `puppet catalog find` prints "Notice: Compiled catalog ..." before the JSON. The
// document starts at the first line whose first non-blank character opens a JSON value.
std::size_t FindDocumentStart(std::string_view text) {
  std::size_t line_start = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") line_start = 3;  // UTF-8 byte order mark
  while (line_start < text.size()) {
    std::size_t pos = line_start;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r')) ++pos;
    if (pos < text.size() && (text[pos] == '{' || text[pos] == '[')) return pos;
    const std::size_t newline = text.find('\n', pos);
    if (newline == std::string_view::npos) break;
    line_start = newline + 1;
  }
  return std::string_view::npos;
}

}  // namespace

class CatalogLoader {
 public:
  static constexpr int kMaxDocumentDepth = 512;

  CatalogLoader(std::string_view text, std::string_view source_name, const LoadOptions& options)
      : text_(text), source_(source_name), options_(options) {
    catalog_.source_name_ = std::string(source_name);
  }

  absl::StatusOr<Catalog> Load() {
    if (text_.size() > options_.max_bytes) {
      return absl::ResourceExhaustedError(base::BudgetHit{base::BudgetLimit::kCatalogBytes,
                                                          options_.max_bytes, std::string(source_)}
                                              .Sentence());
    }
    const std::size_t start = FindDocumentStart(text_);
    if (start == std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("{}: no JSON document found (expected a compiled Puppet catalog)", source_));
    }
    // The resources and edges are taken one element at a time while the text is parsed and
    // dropped from the document right after: a catalog of 200,000 resources never exists as
    // one DOM (see OnParseEvent).
    base::JsonParseOptions options;
    options.start = start;
    options.max_depth = kMaxDocumentDepth;
    options.callback = [this](int depth, Json::parse_event_t event, Json& parsed) {
      return OnParseEvent(depth, event, parsed);
    };
    absl::StatusOr<Json> root = base::ParseJson(text_, source_, options);
    // Past the limit every value was dropped: the document is what was left, not the catalog.
    if (values_exceeded_) {
      return absl::ResourceExhaustedError(base::BudgetHit{base::BudgetLimit::kCatalogValues,
                                                          options_.max_values, std::string(source_)}
                                              .Sentence());
    }
    if (!root.ok()) return root.status();
    try {
      if (absl::Status status = LoadRoot(*root); !status.ok()) return status;
    } catch (const Json::exception& error) {
      // Every access above is type-checked first; this is a safety net, not a path.
      return absl::InternalError(
          fmt::format("{}: unexpected JSON error (nlohmann's {})", source_, error.id));
    }
    return std::move(catalog_);
  }

 private:
  enum class Section { kNone, kResources, kEdges };

  // nlohmann's parser callback. A complete element of the root's "resources" or "edges"
  // array (depth 2: an object, an array or a scalar) is loaded and discarded (false). Only
  // the first error of each section is kept; LoadRoot reports them in document-model order
  // (root fields, resources, containment), as a whole-DOM walk would.
  bool OnParseEvent(int depth, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    // The values held: each complete one counts until the resource or edge it belongs to is
    // taken and dropped. Past the limit nothing more is kept (the parse runs on, over text
    // no larger than max_bytes, and Load reports the limit).
    if (values_exceeded_) return false;
    if (event == Event::value || event == Event::object_end || event == Event::array_end) {
      if (++held_values_ > options_.max_values) {
        values_exceeded_ = true;
        return false;
      }
    }
    if (depth == 1) {
      if (event == Event::key) {
        root_key_ = parsed.is_string() ? parsed.get<std::string>() : std::string();
      } else if (event == Event::array_start) {
        section_ = root_key_ == "resources" ? Section::kResources
                   : root_key_ == "edges"   ? Section::kEdges
                                            : Section::kNone;
        element_ = 0;
        held_at_section_ = held_values_;
        if (section_ == Section::kEdges) pending_edges_.clear();  // a repeated key: the last wins
      } else if (event == Event::array_end) {
        section_ = Section::kNone;
      }
      return true;
    }
    if (depth != 2 || section_ == Section::kNone) return true;
    if (event != Event::object_end && event != Event::array_end && event != Event::value) {
      return true;
    }
    const std::size_t index = element_++;
    try {
      if (section_ == Section::kResources) {
        if (resources_error_.ok()) resources_error_ = LoadResource(parsed, index);
      } else if (edges_error_.ok()) {
        edges_error_ = TakeEdge(parsed, index);
      }
    } catch (const Json::exception& error) {
      // Every access is type-checked first; this is a safety net, not a path.
      absl::Status& slot = section_ == Section::kResources ? resources_error_ : edges_error_;
      if (slot.ok()) {
        slot = absl::InternalError(
            fmt::format("{}: unexpected JSON error (nlohmann's {})", source_, error.id));
      }
    }
    held_values_ = held_at_section_;  // the element is dropped
    return false;
  }

  absl::Status TakeEdge(const Json& edge, std::size_t index) {
    const std::string pointer = base::JsonPointer("/edges", index);
    if (!edge.is_object()) return WrongType(pointer, "an edge object", edge);
    PendingEdge pending{index, {}};
    for (int end = 0; end < 2; ++end) {
      const char* field = end == 0 ? "source" : "target";
      const auto it = edge.find(field);
      if (it == edge.end()) return Error(base::JsonPointer(pointer, field), "missing");
      if (!it->is_string()) return WrongType(base::JsonPointer(pointer, field), "a string", *it);
      pending.ends[end] = it->get<std::string>();
    }
    pending_edges_.push_back(std::move(pending));
    return absl::OkStatus();
  }

  absl::Status Error(std::string_view pointer, std::string_view sentence) const {
    return base::JsonError(source_, pointer, sentence);
  }

  absl::Status WrongType(std::string_view pointer, std::string_view expected,
                         const Json& value) const {
    return base::JsonTypeError(source_, pointer, expected, value);
  }

  absl::Status LoadRoot(const Json& root) {
    if (!root.is_object()) return WrongType("", "a catalog object", root);
    // Formats 1 (no resource `kind`) and 2 (Puppet 6 to 8) are read; a catalog without the
    // field (older Puppet, or written by hand) is taken as it comes. Anything else is a
    // document we do not know how to read: refuse it rather than guess.
    if (const auto format = root.find("catalog_format"); format != root.end()) {
      if (!format->is_number_integer()) {
        return WrongType("/catalog_format", "an integer", *format);
      }
      if (*format != 1 && *format != 2) {
        return Error("/catalog_format",
                     fmt::format("unsupported catalog format {} (fsmove reads formats 1 and 2)",
                                 format->dump()));
      }
    }
    if (const auto name = root.find("name"); name != root.end()) {
      if (!name->is_string() && !name->is_null()) return WrongType("/name", "a string", *name);
      if (name->is_string()) catalog_.node_name_ = name->get<std::string>();
    }
    const auto resources = root.find("resources");
    if (resources == root.end()) {
      return Error("/resources", "missing (a compiled catalog lists its resources there)");
    }
    if (!resources->is_array()) return WrongType("/resources", "an array", *resources);
    if (!resources_error_.ok()) return resources_error_;  // loaded while parsing
    for (ResourceId id = 0; id < catalog_.resources_.size(); ++id) {
      catalog_.type_index_[catalog_.resources_[id].type].push_back(id);
    }
    linker_.IndexAliases();
    if (absl::Status status = LoadContainment(root); !status.ok()) return status;
    linker_.MarkContainers();
    for (ResourceId id = 0; id < catalog_.resources_.size(); ++id) {
      if (absl::Status status = linker_.LoadRelationships(id); !status.ok()) return status;
      // Now held as relationships: their JSON (one string per reference) goes.
      Json& parameters = catalog_.resources_[id].parameters;
      if (!parameters.is_object()) continue;
      for (const char* name : {"before", "notify", "require", "subscribe"}) parameters.erase(name);
      if (parameters.empty()) parameters = nullptr;
    }
    // Grown by doubling while loading; a large catalog would keep up to twice its size.
    catalog_.resources_.shrink_to_fit();
    catalog_.relationships_.shrink_to_fit();
    catalog_.containment_.shrink_to_fit();
    return absl::OkStatus();
  }

  absl::Status LoadResource(Json& value, std::size_t index) {
    const std::string pointer = base::JsonPointer("/resources", index);
    if (!value.is_object()) return WrongType(pointer, "a resource object", value);

    Resource resource;
    resource.json_index = index;
    for (const char* field : {"type", "title"}) {
      const auto it = value.find(field);
      if (it == value.end()) return Error(base::JsonPointer(pointer, field), "missing");
      if (!it->is_string()) return WrongType(base::JsonPointer(pointer, field), "a string", *it);
      if (it->get_ref<const std::string&>().empty()) {
        return Error(base::JsonPointer(pointer, field), "must not be empty");
      }
    }
    const std::string& raw_type = value["type"].get_ref<const std::string&>();
    if (!IsValidTypeName(raw_type)) {
      return Error(base::JsonPointer(pointer, "type"),
                   fmt::format("not a resource type name: \"{}\"", raw_type));
    }
    resource.type = CanonicalTypeName(raw_type);
    resource.title = value["title"].get<std::string>();
    resource.ref = fmt::format("{}[{}]", resource.type, resource.title);

    if (const auto it = value.find("file"); it != value.end() && !it->is_null()) {
      if (!it->is_string()) return WrongType(base::JsonPointer(pointer, "file"), "a string", *it);
      resource.file = it->get<std::string>();
      for (const auto& [from, to] : options_.file_prefixes) {
        if (resource.file.starts_with(from)) {
          resource.file = to + resource.file.substr(from.size());
          break;
        }
      }
    }
    if (const auto it = value.find("line"); it != value.end() && !it->is_null()) {
      if (!it->is_number_integer())
        return WrongType(base::JsonPointer(pointer, "line"), "an integer", *it);
      // A line that does not fit would be reported as another line: refuse it.
      if (*it < 0 || *it > std::numeric_limits<int>::max()) {
        return Error(base::JsonPointer(pointer, "line"),
                     fmt::format("line number out of range: {}", it->dump()));
      }
      resource.line = it->get<int>();
    }
    if (const auto it = value.find("tags"); it != value.end() && !it->is_null()) {
      if (!it->is_array()) return WrongType(base::JsonPointer(pointer, "tags"), "an array", *it);
      for (std::size_t t = 0; t < it->size(); ++t) {
        const Json& tag = (*it)[t];
        if (!tag.is_string())
          return WrongType(base::JsonPointer(base::JsonPointer(pointer, "tags"), t), "a string",
                           tag);
        resource.tags.push_back(tag.get<std::string>());
      }
    }
    if (const auto it = value.find("kind"); it != value.end() && !it->is_null()) {
      if (!it->is_string()) return WrongType(base::JsonPointer(pointer, "kind"), "a string", *it);
      resource.kind = it->get<std::string>();
    }
    bool exported = false;
    if (const auto it = value.find("exported"); it != value.end() && !it->is_null()) {
      if (!it->is_boolean())
        return WrongType(base::JsonPointer(pointer, "exported"), "a boolean", *it);
      exported = it->get<bool>();
    }
    if (const auto it = value.find("parameters"); it != value.end() && !it->is_null()) {
      if (!it->is_object())
        return WrongType(base::JsonPointer(pointer, "parameters"), "an object", *it);
      resource.parameters = std::move(*it);
    }

    const std::string key = IndexKey(resource.type, resource.title);
    if (exported) {
      // Never applied on this node; remembered so that references to it get a clear warning.
      catalog_.exported_refs_.insert(key);
      return absl::OkStatus();
    }
    const auto [it, inserted] =
        catalog_.title_index_.emplace(key, static_cast<ResourceId>(catalog_.resources_.size()));
    if (!inserted) {
      return Error(
          pointer,
          fmt::format("duplicate resource {} (first at {})", resource.ref,
                      base::JsonPointer("/resources", catalog_.resources_[it->second].json_index)));
    }
    catalog_.resources_.push_back(std::move(resource));
    return absl::OkStatus();
  }

  absl::Status LoadContainment(const Json& root) {
    const auto edges = root.find("edges");
    if (edges == root.end() || edges->is_null()) {
      linker_.Warn("/edges",
                   "missing: no containment known, relationships on classes reach nothing");
      return absl::OkStatus();
    }
    if (!edges->is_array()) return WrongType("/edges", "an array", *edges);
    if (!edges_error_.ok()) return edges_error_;  // taken while parsing
    linker_.AddContainment(pending_edges_);
    pending_edges_ = {};
    return absl::OkStatus();
  }

  std::string_view text_;
  std::string_view source_;
  const LoadOptions& options_;
  Catalog catalog_;
  CatalogLinker linker_{catalog_, source_};
  // JSON values held in the document being parsed (OnParseEvent), and when the section being
  // read began: each of its elements is dropped once taken.
  std::uint64_t held_values_ = 0;
  std::uint64_t held_at_section_ = 0;
  bool values_exceeded_ = false;
  // Parse-time state (OnParseEvent).
  std::string root_key_;
  Section section_ = Section::kNone;
  std::size_t element_ = 0;
  absl::Status resources_error_;
  absl::Status edges_error_;
  std::vector<PendingEdge> pending_edges_;
};

absl::StatusOr<Catalog> Catalog::LoadString(std::string_view text, std::string_view source_name,
                                            const LoadOptions& options) {
  return CatalogLoader(text, source_name, options).Load();
}

absl::StatusOr<Catalog> Catalog::LoadFile(const std::string& path, const LoadOptions& options) {
  const uint64_t max_bytes = std::min<uint64_t>(options.max_bytes, kMaxCatalogBytes);
  absl::StatusOr<std::string> text =
      base::ReadFile(path, "catalog", static_cast<std::size_t>(max_bytes));
  if (absl::IsResourceExhausted(text.status())) {
    return absl::ResourceExhaustedError(
        base::BudgetHit{base::BudgetLimit::kCatalogBytes, max_bytes, path}.Sentence());
  }
  if (!text.ok()) return text.status();
  return LoadString(*text, path, options);
}

}  // namespace fsmove::catalog

#include "app/code/python_tree.h"

#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

extern "C" const TSLanguage* tree_sitter_python();

namespace pipescope::code {

std::string_view SyntaxNode::text() const {
  if (null()) return {};
  const std::string& s = tree_->source();
  const size_t begin = ts_node_start_byte(node_), end = ts_node_end_byte(node_);
  if (begin > end || end > s.size()) return {};
  return std::string_view(s).substr(begin, end - begin);
}

SourcePoint SyntaxNode::start() const {
  if (null()) return {};
  const TSPoint p = ts_node_start_point(node_);
  // tree-sitter counts columns in bytes; editors count characters. The files import-code
  // reads are mostly ASCII, and a byte column still finds the place.
  return {static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1, tree_->interned_file()};
}

std::string_view SyntaxNode::file() const { return tree_ ? tree_->file() : std::string_view(); }

const char* InternedFileName(const std::string& name) {
  static std::mutex mutex;
  static std::set<std::string>* names = new std::set<std::string>();  // never destroyed
  const std::lock_guard<std::mutex> lock(mutex);
  return names->insert(name).first->c_str();
}

size_t SyntaxNode::key() const { return (tree_ ? tree_->key_base() : 0) + start_byte(); }

namespace {
// The grammar's field ids by name, looked up once: ts_node_child_by_field_name compares the
// name with each of the grammar's field names on every call, and the reader asks for a
// field at nearly every node it reads.
TSFieldId FieldId(std::string_view name) {
  static const std::unordered_map<std::string_view, TSFieldId>* ids = [] {
    auto* m = new std::unordered_map<std::string_view, TSFieldId>();  // never destroyed
    const TSLanguage* python = tree_sitter_python();
    const uint32_t count = ts_language_field_count(python);
    for (TSFieldId id = 1; id <= count; ++id) {
      if (const char* n = ts_language_field_name_for_id(python, id)) m->emplace(n, id);
    }
    return m;
  }();
  const auto it = ids->find(name);
  return it == ids->end() ? 0 : it->second;
}
}  // namespace

SyntaxNode SyntaxNode::field(const char* name) const {
  if (null()) return {};
  const TSFieldId id = FieldId(name);
  if (id == 0) return {};
  return {ts_node_child_by_field_id(node_, id), tree_};
}

std::vector<SyntaxNode> SyntaxNode::ChildrenOf(bool named_only) const {
  std::vector<SyntaxNode> out;
  if (null()) return out;
  const uint32_t count = ts_node_child_count(node_);
  out.reserve(count);
  // ts_node_child(i) starts from the first child each time: cheaper than a cursor's set-up
  // for the few children of most nodes, quadratic for a block of many statements.
  constexpr uint32_t kFewChildren = 6;
  if (count <= kFewChildren) {
    for (uint32_t i = 0; i < count; ++i) {
      const TSNode child = ts_node_child(node_, i);
      if (!named_only || ts_node_is_named(child)) out.emplace_back(child, tree_);
    }
    return out;
  }
  // A cursor walks the children in one pass.
  TSTreeCursor cursor = ts_tree_cursor_new(node_);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const TSNode child = ts_tree_cursor_current_node(&cursor);
      if (!named_only || ts_node_is_named(child)) out.emplace_back(child, tree_);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::vector<SyntaxNode> SyntaxNode::named_children() const { return ChildrenOf(true); }

std::vector<SyntaxNode> SyntaxNode::children() const { return ChildrenOf(false); }

std::vector<SyntaxNode> SyntaxNode::code_children() const {
  std::vector<SyntaxNode> out = named_children();
  std::erase_if(out, [](const SyntaxNode& n) { return n.Is("comment"); });
  return out;
}

SyntaxNode SyntaxNode::parent() const {
  if (null()) return {};
  return {ts_node_parent(node_), tree_};
}

PythonTree::PythonTree(std::string source, const std::string& file, size_t key_base)
    : source_(std::move(source)),
      file_(file.empty() ? nullptr : InternedFileName(file)),
      key_base_(key_base) {
  parser_ = ts_parser_new();
  ts_parser_set_language(parser_, tree_sitter_python());
  tree_ = ts_parser_parse_string(parser_, nullptr, source_.data(),
                                 static_cast<uint32_t>(source_.size()));
}

PythonTree::~PythonTree() {
  if (tree_) ts_tree_delete(tree_);
  if (parser_) ts_parser_delete(parser_);
}

SyntaxNode PythonTree::root() const {
  if (!tree_) return {};
  return {ts_tree_root_node(tree_), this};
}

namespace {

void CollectProblems(TSNode node, const PythonTree& tree, std::vector<SyntaxProblem>& out,
                     int depth) {
  // Deeper than any code people write: the problems above it are reported already.
  if (!ts_node_has_error(node) || depth > 500) return;
  const SyntaxNode n(node, &tree);
  if (ts_node_is_missing(node)) {
    out.push_back({n.start(), "expected " + std::string(n.type())});
    return;
  }
  if (n.Is("ERROR")) {
    std::string snippet(n.text().substr(0, 40));
    if (const size_t nl = snippet.find('\n'); nl != std::string::npos) snippet.resize(nl);
    out.push_back({n.start(), "Python syntax the parser could not read: '" + snippet + "'"});
    return;
  }
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i)
    CollectProblems(ts_node_child(node, i), tree, out, depth + 1);
}

}  // namespace

std::vector<SyntaxProblem> PythonTree::Problems() const {
  std::vector<SyntaxProblem> out;
  if (tree_) CollectProblems(ts_tree_root_node(tree_), *this, out, 0);
  return out;
}

bool AnyNodeWithin(const SyntaxNode& node, const std::function<bool(const SyntaxNode&)>& test) {
  if (node.null()) return false;
  TSTreeCursor cursor = ts_tree_cursor_new(node.ts_node());
  bool found = false;
  // Pre-order: the node, then down into its first child, else on to the next sibling of it
  // or of the nearest ancestor below `node` that has one.
  for (;;) {
    if (test(SyntaxNode(ts_tree_cursor_current_node(&cursor), node.tree()))) {
      found = true;
      break;
    }
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        moved = true;
      } else if (!ts_tree_cursor_goto_parent(&cursor)) {
        break;  // back at `node`, the cursor's root: every node below it seen
      }
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
  return found;
}

namespace {
bool HoldsYieldWithin(const SyntaxNode& node, int depth) {
  if (node.null() || depth > 64 || node.Is("function_definition") || node.Is("lambda") ||
      node.Is("class_definition")) {
    return false;
  }
  if (node.Is("yield")) return true;
  for (const SyntaxNode& c : node.named_children()) {
    if (HoldsYieldWithin(c, depth + 1)) return true;
  }
  return false;
}
}  // namespace

bool HoldsYield(const SyntaxNode& node) { return HoldsYieldWithin(node, 0); }

}  // namespace pipescope::code

#include "app/code/python_tree.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

extern "C" const TSLanguage* tree_sitter_python();

namespace pipescope::code {

namespace {

const TSLanguage* Python() {
  static const TSLanguage* python = tree_sitter_python();
  return python;
}

// The grammar's names, looked up once: by symbol for a node's type (ts_language_symbol_name
// is a C string, and a string_view of it would measure its length at every question), and
// field ids by name (ts_node_child_by_field_name compared the name with each of the
// grammar's field names on every call).
struct GrammarNames {
  std::vector<std::string_view> symbols;
  std::unordered_map<std::string_view, TSFieldId> fields;
};

const GrammarNames& Names() {
  static const GrammarNames* names = [] {
    auto* n = new GrammarNames();  // never destroyed
    const uint32_t symbol_count = ts_language_symbol_count(Python());
    n->symbols.resize(symbol_count);
    for (uint32_t s = 0; s < symbol_count; ++s) {
      if (const char* name = ts_language_symbol_name(Python(), static_cast<TSSymbol>(s)))
        n->symbols[s] = name;
    }
    const uint32_t field_count = ts_language_field_count(Python());
    for (TSFieldId id = 1; id <= field_count; ++id) {
      if (const char* name = ts_language_field_name_for_id(Python(), id))
        n->fields.emplace(name, id);
    }
    return n;
  }();
  return *names;
}

TSFieldId FieldId(std::string_view name) {
  const auto& fields = Names().fields;
  const auto it = fields.find(name);
  return it == fields.end() ? 0 : it->second;
}

}  // namespace

std::string_view SyntaxNode::type() const {
  if (null()) return {};
  const auto& symbols = Names().symbols;
  const uint16_t symbol = tree_->node(index_).symbol;
  return symbol < symbols.size() ? symbols[symbol] : std::string_view();
}

std::string_view SyntaxNode::text() const {
  if (null()) return {};
  const std::string& s = tree_->source();
  const PythonTree::Node& n = tree_->node(index_);
  if (n.start_byte > n.end_byte || n.end_byte > s.size()) return {};
  return std::string_view(s).substr(n.start_byte, n.end_byte - n.start_byte);
}

SourcePoint SyntaxNode::start() const {
  if (null()) return {};
  const PythonTree::Node& n = tree_->node(index_);
  // tree-sitter counts columns in bytes; editors count characters. The files import-code
  // reads are mostly ASCII, and a byte column still finds the place.
  return {static_cast<int>(n.row) + 1, static_cast<int>(n.column) + 1, tree_->interned_file()};
}

size_t SyntaxNode::start_byte() const { return null() ? 0 : tree_->node(index_).start_byte; }

size_t SyntaxNode::end_byte() const { return null() ? 0 : tree_->node(index_).end_byte; }

std::string_view SyntaxNode::file() const { return tree_ ? tree_->file() : std::string_view(); }

const char* InternedFileName(const std::string& name) {
  static std::mutex mutex;
  static std::set<std::string>* names = new std::set<std::string>();  // never destroyed
  const std::lock_guard<std::mutex> lock(mutex);
  return names->insert(name).first->c_str();
}

size_t SyntaxNode::key() const { return (tree_ ? tree_->key_base() : 0) + start_byte(); }

SyntaxNode SyntaxNode::field(const char* name) const {
  if (null()) return {};
  const TSFieldId id = FieldId(name);
  if (id == 0) return {};
  for (uint32_t c = tree_->node(index_).first_child; c != PythonTree::kNone;
       c = tree_->node(c).next_sibling) {
    if (tree_->node(c).field == id) return {c, tree_};
  }
  return {};
}

namespace {
std::vector<SyntaxNode> ChildrenOf(const SyntaxNode& node, bool named_only) {
  std::vector<SyntaxNode> out;
  if (node.null()) return out;
  const PythonTree& tree = *node.tree();
  for (uint32_t c = tree.node(node.index()).first_child; c != PythonTree::kNone;
       c = tree.node(c).next_sibling) {
    if (!named_only || tree.node(c).named) out.emplace_back(c, &tree);
  }
  return out;
}
}  // namespace

std::vector<SyntaxNode> SyntaxNode::named_children() const { return ChildrenOf(*this, true); }

std::vector<SyntaxNode> SyntaxNode::children() const { return ChildrenOf(*this, false); }

std::vector<SyntaxNode> SyntaxNode::code_children() const {
  std::vector<SyntaxNode> out = named_children();
  std::erase_if(out, [](const SyntaxNode& n) { return n.Is("comment"); });
  return out;
}

SyntaxNode SyntaxNode::parent() const {
  if (null()) return {};
  const uint32_t p = tree_->node(index_).parent;
  return p == PythonTree::kNone ? SyntaxNode() : SyntaxNode(p, tree_);
}

namespace {

void CollectProblems(TSNode node, const PythonTree& tree, std::vector<SyntaxProblem>& out,
                     int depth) {
  // Deeper than any code people write: the problems above it are reported already.
  if (!ts_node_has_error(node) || depth > 500) return;
  const TSPoint p = ts_node_start_point(node);
  const SourcePoint at{static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1,
                       tree.interned_file()};
  if (ts_node_is_missing(node)) {
    out.push_back({at, "expected " + std::string(ts_node_type(node))});
    return;
  }
  if (std::string_view(ts_node_type(node)) == "ERROR") {
    const uint32_t begin = ts_node_start_byte(node);
    const uint32_t end = std::min<uint32_t>(ts_node_end_byte(node), tree.source().size());
    std::string snippet =
        begin < end ? tree.source().substr(begin, std::min<uint32_t>(end - begin, 40)) : "";
    if (const size_t nl = snippet.find('\n'); nl != std::string::npos) snippet.resize(nl);
    out.push_back({at, "Python syntax the parser could not read: '" + snippet + "'"});
    return;
  }
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i)
    CollectProblems(ts_node_child(node, i), tree, out, depth + 1);
}

// Copies the parse into `nodes` in pre-order with one cursor walk: each node linked to its
// parent, first child and next sibling, and told where its subtree ends.
void Flatten(TSNode root, std::vector<PythonTree::Node>& nodes) {
  const auto add = [&nodes](const TSTreeCursor& cursor, uint32_t parent) {
    const TSNode n = ts_tree_cursor_current_node(&cursor);
    PythonTree::Node node;
    node.start_byte = ts_node_start_byte(n);
    node.end_byte = ts_node_end_byte(n);
    const TSPoint p = ts_node_start_point(n);
    node.row = p.row;
    node.column = p.column;
    node.parent = parent;
    node.symbol = ts_node_symbol(n);
    node.field = ts_tree_cursor_current_field_id(&cursor);
    node.named = ts_node_is_named(n);
    nodes.push_back(node);
    return static_cast<uint32_t>(nodes.size() - 1);
  };
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  std::vector<uint32_t> path{add(cursor, PythonTree::kNone)};  // the cursor's ancestors and it
  const auto close = [&] {
    nodes[path.back()].subtree_end = static_cast<uint32_t>(nodes.size());
    path.pop_back();
  };
  for (;;) {
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      const uint32_t child = add(cursor, path.back());
      nodes[path.back()].first_child = child;
      path.push_back(child);
      continue;
    }
    // A leaf: on to its next sibling, or to that of the nearest ancestor that has one.
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        const uint32_t previous = path.back();
        close();
        const uint32_t sibling = add(cursor, path.back());
        nodes[previous].next_sibling = sibling;
        path.push_back(sibling);
        break;
      }
      close();
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
    }
    if (path.empty()) break;
  }
  ts_tree_cursor_delete(&cursor);
}

}  // namespace

PythonTree::PythonTree(std::string source, const std::string& file, size_t key_base)
    : source_(std::move(source)),
      file_(file.empty() ? nullptr : InternedFileName(file)),
      key_base_(key_base) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, Python());
  TSTree* tree = ts_parser_parse_string(parser, nullptr, source_.data(),
                                        static_cast<uint32_t>(source_.size()));
  if (tree) {
    const TSNode root = ts_tree_root_node(tree);
    Flatten(root, nodes_);
    CollectProblems(root, *this, problems_, 0);
    ts_tree_delete(tree);
  }
  ts_parser_delete(parser);
}

PythonTree::~PythonTree() = default;

SyntaxNode PythonTree::root() const {
  if (nodes_.empty()) return {};
  return {0, this};
}

bool AnyNodeWithin(const SyntaxNode& node, const std::function<bool(const SyntaxNode&)>& test) {
  if (node.null()) return false;
  const PythonTree& tree = *node.tree();
  // Pre-order: the node's subtree is the run of nodes from it to its subtree's end.
  const uint32_t end = tree.node(node.index()).subtree_end;
  for (uint32_t i = node.index(); i < end; ++i) {
    if (test(SyntaxNode(i, &tree))) return true;
  }
  return false;
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
bool LeavesLoop(const SyntaxNode& node) {
  if (node.Is("break_statement") || node.Is("return_statement")) return true;
  if (node.Is("function_definition") || node.Is("lambda") || node.Is("class_definition") ||
      node.Is("for_statement") || node.Is("while_statement")) {
    return false;  // a break there leaves that loop, not this one
  }
  for (const SyntaxNode& c : node.named_children()) {
    if (LeavesLoop(c)) return true;
  }
  return false;
}
}  // namespace

bool HoldsYield(const SyntaxNode& node) { return HoldsYieldWithin(node, 0); }

bool YieldsInAnEndlessLoop(const SyntaxNode& body) {
  for (const SyntaxNode& s : body.code_children()) {
    if (!s.Is("while_statement")) continue;
    const std::string_view condition = s.field("condition").text();
    if ((condition == "True" || condition == "1") && HoldsYield(s.field("body")) &&
        !LeavesLoop(s.field("body"))) {
      return true;
    }
  }
  return false;
}

}  // namespace pipescope::code

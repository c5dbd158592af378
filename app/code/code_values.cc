#include "app/code/code_values.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pipescope::code {

namespace {

// Op names are unique across the whole spec, an interleave's or a zip's own ops included.
bool NameTaken(const google::protobuf::RepeatedPtrField<spec::Op>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name() == name) return true;
    if (NameTaken(op.interleave().ops(), name) || NameTaken(op.flat_map().ops(), name)) return true;
    if (op.zip().source().name() == name || NameTaken(op.zip().ops(), name)) return true;
  }
  return false;
}

}  // namespace

std::string Pipeline::FreshName(const std::string& base) const {
  auto taken = [&](const std::string& name) {
    if (source.name() == name) return true;
    return std::any_of(ops.begin(), ops.end(), [&](const spec::Op& op) {
      return op.name() == name || NameTaken(op.interleave().ops(), name) ||
             NameTaken(op.flat_map().ops(), name) || op.zip().source().name() == name ||
             NameTaken(op.zip().ops(), name);
    });
  };
  if (!taken(base)) return base;
  for (int n = 2;; ++n) {
    std::string name = base + "_" + std::to_string(n);
    if (!taken(name)) return name;
  }
}

std::optional<int64_t> Value::AsInt() const {
  switch (kind) {
    case Kind::kInt:
      return i;
    case Kind::kBool:
      return b ? 1 : 0;
    case Kind::kFloat:
      if (std::isfinite(f) && f == std::floor(f)) return static_cast<int64_t>(f);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<double> Value::AsNumber() const {
  if (kind == Kind::kFloat) return f;
  if (const auto n = AsInt()) return static_cast<double>(*n);
  return std::nullopt;
}

std::optional<int64_t> Value::AsSleepNs() const {
  const auto seconds = Is(Kind::kBool) ? std::nullopt : AsNumber();
  if (!seconds || !(*seconds > 0 && *seconds < 86'400)) return std::nullopt;
  return static_cast<int64_t>(*seconds * 1e9);
}

std::string Value::SymbolTail() const {
  if (kind != Kind::kSymbol) return {};
  const size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

std::string Value::Spelling() const {
  std::string text(node.text());
  if (text.empty()) return kind == Kind::kSymbol ? s : "?";
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

SyntaxNode Value::WrittenAt() const {
  if (!written_at.null()) return written_at;
  const bool literal = node.Is("integer") || node.Is("float") || node.Is("true") ||
                       node.Is("false") || node.Is("none");
  if (!literal || !node.file().empty()) return {};  // a module's file is not written into
  // Where a name, an attribute or a parameter takes it as it is: the right of `x = 4`, a
  // keyword's or a default's value, a dict's value, a call's argument. Not an item of a list
  // or a branch of an expression, which other values share the place of.
  const SyntaxNode parent = node.parent();
  const auto is = [&](const char* field) {
    const SyntaxNode at = parent.field(field);
    return !at.null() && at.index() == node.index();
  };
  if ((parent.Is("assignment") && is("right")) ||
      ((parent.Is("keyword_argument") || parent.Is("default_parameter") ||
        parent.Is("typed_default_parameter") || parent.Is("pair")) &&
       is("value")) ||
      parent.Is("argument_list")) {
    return node;
  }
  return {};
}

const Value* CallArgs::Get(size_t position, const std::string& name) const {
  if (const auto it = keyword.find(name); it != keyword.end()) return &it->second;
  if (position < positional.size()) return &positional[position];
  return nullptr;
}

const Value* ItemOf(const Value& dict, const std::string& key) {
  for (size_t k = 0; k + 1 < dict.items.size(); k += 2) {
    if (dict.items[k].Is(Value::Kind::kString) && dict.items[k].s == key) {
      return &dict.items[k + 1];
    }
  }
  return nullptr;
}

void PutItem(Value& dict, const Value& key, const Value& value) {
  for (size_t k = 0; key.Is(Value::Kind::kString) && k + 1 < dict.items.size(); k += 2) {
    if (dict.items[k].Is(Value::Kind::kString) && dict.items[k].s == key.s) {
      dict.items[k + 1] = value;
      return;
    }
  }
  dict.items.push_back(key);
  dict.items.push_back(value);
}

const Value* CallArgs::Get(const std::string& name) const {
  const auto it = keyword.find(name);
  return it == keyword.end() ? nullptr : &it->second;
}

}  // namespace pipescope::code

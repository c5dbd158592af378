#include "app/code/filter_predicates.h"

#include <cstdlib>
#include <vector>

namespace pipescope::code {
namespace {

SyntaxNode WithoutIndex(SyntaxNode n) {
  while (n.Is("subscript") || n.Is("parenthesized_expression")) {
    n = n.Is("subscript") ? n.field("value") : n.code_children().front();
  }
  return n;
}

// A uniform draw in [0, 1): tf.random_uniform([1]), tf.random.uniform([]), np.random.rand().
bool IsUniformDraw(const SyntaxNode& node) {
  const SyntaxNode n = WithoutIndex(node);
  if (!n.Is("call")) return false;
  const std::string_view f = n.field("function").text();
  return f.ends_with("random_uniform") || f.ends_with("random.uniform") ||
         f.ends_with("random.rand") || f.ends_with("random.random");
}

// The share a predicate that keeps a random share keeps, where the code gives it:
// `tf.less(tf.random_uniform([1]), p)[0]` (minigo's filter_amount) or `uniform < p`.
std::optional<double> ShareBelowAUniformDraw(PythonReader& r, const SyntaxNode& expression) {
  const SyntaxNode body = WithoutIndex(expression);
  SyntaxNode draw, share;
  if (body.Is("call")) {
    const std::string_view f = body.field("function").text();
    const auto args = body.field("arguments").code_children();
    if ((f.ends_with("less") || f.ends_with("less_equal")) && args.size() == 2) {
      draw = args[0];
      share = args[1];
    }
  } else if (body.Is("comparison_operator")) {
    const auto operands = body.code_children();
    const std::string_view text = body.text();
    if (operands.size() == 2 && text.find('<') != std::string_view::npos) {
      draw = operands[0];
      share = operands[1];
    } else if (operands.size() == 2 && text.find('>') != std::string_view::npos) {
      draw = operands[1];
      share = operands[0];
    }
  }
  if (draw.null() || !IsUniformDraw(draw)) return std::nullopt;
  const auto p = r.Evaluate(share).AsNumber();
  if (!p || *p <= 0 || *p > 1) return std::nullopt;
  return *p;
}

std::optional<int64_t> IntegerConstant(const SyntaxNode& n) {
  if (!n.Is("integer")) return std::nullopt;
  return std::strtoll(std::string(n.text()).c_str(), nullptr, 10);
}

// m where `e` is `x % m` for an integer constant m > 0.
std::optional<int64_t> ModulusOf(const SyntaxNode& e) {
  if (!e.Is("binary_operator") || e.field("operator").text() != "%") return std::nullopt;
  const std::optional<int64_t> m = IntegerConstant(e.field("right"));
  if (!m || *m <= 0) return std::nullopt;
  return m;
}

// What `expression` keeps, where it is a condition the code shows: a uniform draw below a
// share, or a modulo.
PredicateRead ReadCondition(PythonReader& r, const SyntaxNode& expression) {
  PredicateRead read;
  if (const std::optional<double> share = ShareBelowAUniformDraw(r, expression)) {
    read.predicate.mutable_keep_fraction()->set_fraction(*share);
    read.predicate.mutable_keep_fraction()->set_uniform_draw(true);
    read.known = true;
  } else if (const std::optional<spec::ModEquals> modulo = ModuloCondition(expression)) {
    *read.predicate.mutable_mod_equals() = *modulo;
    read.known = true;
  } else {
    read.predicate.mutable_keep_fraction()->set_fraction(1);
  }
  return read;
}

}  // namespace

std::optional<spec::ModEquals> ModuloCondition(const SyntaxNode& condition) {
  const SyntaxNode c = WithoutIndex(condition);
  spec::ModEquals out;
  if (c.Is("not_operator")) {
    const std::optional<int64_t> m = ModulusOf(WithoutIndex(c.field("argument")));
    if (!m) return std::nullopt;
    out.set_modulus(*m);
    return out;
  }
  if (!c.Is("comparison_operator")) return std::nullopt;
  const std::vector<SyntaxNode> operands = c.code_children();
  const std::vector<SyntaxNode> parts = c.children();
  if (operands.size() != 2 || parts.size() != 3 || parts[1].text() != "==") return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const std::optional<int64_t> m = ModulusOf(WithoutIndex(operands[i]));
    const std::optional<int64_t> remainder = IntegerConstant(operands[1 - i]);
    if (m && remainder) {
      out.set_modulus(*m);
      out.set_remainder(*remainder);
      return out;
    }
  }
  return std::nullopt;
}

SyntaxNode ReturnedExpression(const Value& fn) {
  if (!fn.Is(Value::Kind::kFunction)) return {};
  if (fn.node.Is("lambda")) return fn.node.field("body");
  if (!fn.node.Is("function_definition")) return {};
  std::vector<SyntaxNode> statements = fn.node.field("body").code_children();
  if (!statements.empty() && statements.front().Is("expression_statement") &&
      statements.front().code_children().size() == 1 &&
      statements.front().code_children().front().Is("string")) {
    statements.erase(statements.begin());  // the docstring
  }
  if (statements.size() != 1 || !statements.front().Is("return_statement")) return {};
  const std::vector<SyntaxNode> returned = statements.front().code_children();
  return returned.size() == 1 ? returned.front() : SyntaxNode{};
}

PredicateRead ReadPredicate(PythonReader& r, const Value* fn) {
  const SyntaxNode returned = fn ? ReturnedExpression(*fn) : SyntaxNode{};
  if (returned.null()) {
    PredicateRead read;
    read.predicate.mutable_keep_fraction()->set_fraction(1);
    return read;
  }
  return ReadCondition(r, returned);
}

std::optional<MaskedRows> RowsMasked(PythonReader& r, const Value* fn) {
  if (!fn || !fn->Is(Value::Kind::kFunction) || !fn->node.Is("lambda")) return std::nullopt;
  const SyntaxNode body = fn->node.field("body");
  if (!body.Is("call") || !body.field("function").text().ends_with("boolean_mask")) {
    return std::nullopt;
  }
  const std::vector<SyntaxNode> args = body.field("arguments").code_children();
  if (args.size() != 2) return std::nullopt;
  const SyntaxNode mask = args[1].Is("keyword_argument") ? args[1].field("value") : args[1];
  MaskedRows out;
  // The predicate function called on the batch (`filter_fn(x)`): what it keeps, its name.
  if (mask.Is("call")) {
    const Value called = r.Evaluate(mask.field("function"));
    if (called.Is(Value::Kind::kFunction)) {
      out.kept = ReadPredicate(r, &called);
      out.name = called.s.empty() ? "filter" : called.s;
      return out;
    }
  }
  out.kept = ReadCondition(r, mask);
  const bool drawn = out.kept.known && out.kept.predicate.keep_fraction().uniform_draw();
  out.name = drawn ? "sample" : "filter";
  return out;
}

}  // namespace pipescope::code

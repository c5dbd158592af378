#include "app/code/work_after_pipeline.h"

#include <algorithm>
#include <string_view>

namespace pipescope::code {

namespace {

bool IsTensorFlowCallee(std::string_view callee) {
  return callee.starts_with("tf.") || callee.starts_with("tensorflow.");
}

// TensorFlow calls that do no work on what they are given: logging, scopes, devices, tapes.
bool DoesNoWork(std::string_view callee) {
  const std::string_view path = callee.substr(callee.find('.') + 1);
  for (std::string_view none :
       {"print", "summary.", "debugging.", "name_scope", "variable_scope", "device", "GradientTape",
        "control_dependencies", "identity", "compat.v1.name_scope"}) {
    if (path.starts_with(none)) return true;
  }
  return false;
}

bool Mentions(const SyntaxNode& expression, const Names& names) {
  // The text first: most statements after an element arrives hold none of its names.
  const std::string_view text = expression.text();
  if (std::none_of(names.begin(), names.end(), [&text](const std::string& name) {
        return text.find(name) != std::string_view::npos;
      })) {
    return false;
  }
  return AnyNodeWithin(expression, [&names](const SyntaxNode& n) {
    return names.find(n.text()) != names.end() && n.Is("identifier");
  });
}

// TensorFlow's calls that build or train the model: its layers, variables, losses and
// optimizers (TensorFlow 1's `tf.layers.dense(x, 10)`, `tf.train.AdamOptimizer().minimize`).
// What they compute is the step's work, never the input's (tensorflow#13610).
bool BuildsOrTrainsTheModel(std::string_view callee) {
  std::string_view path = callee.substr(callee.find('.') + 1);
  if (path.starts_with("compat.v1.")) path.remove_prefix(std::string_view("compat.v1.").size());
  for (std::string_view model :
       {"layers.", "keras.layers.", "keras.models.", "keras.Model", "keras.Sequential",
        "keras.optimizers.", "keras.losses.", "losses.", "metrics.", "estimator.",
        "contrib.layers.", "contrib.slim.", "get_variable", "Variable", "nn.softmax_cross_entropy",
        "nn.sparse_softmax_cross_entropy", "nn.sigmoid_cross_entropy", "gradients"}) {
    if (path.starts_with(model)) return true;
  }
  // tf.train's optimizers (AdamOptimizer().minimize), not its Example or Feature.
  return path.starts_with("train.") && path.find("Optimizer") != std::string_view::npos;
}

// Whether every call in `expression` is TensorFlow's input work: what it computes from an
// element is still the input's (`tf.cast(x, tf.float32) / 255`), not the model's
// (`model(x)`, `tf.layers.dense(x, 10)`).
bool OnlyInputCalls(const SyntaxNode& expression) {
  return !AnyNodeWithin(expression, [](const SyntaxNode& n) {
    if (!n.Is("call")) return false;
    const std::string_view callee = n.field("function").text();
    return !IsTensorFlowCallee(callee) || BuildsOrTrainsTheModel(callee);
  });
}

// The TensorFlow ops in `expression` that do work, outermost first.
void CollectOps(const SyntaxNode& expression, std::vector<SyntaxNode>& out) {
  AnyNodeWithin(expression, [&out](const SyntaxNode& n) {
    if (n.Is("call")) {
      const std::string_view callee = n.field("function").text();
      if (IsTensorFlowCallee(callee) && !DoesNoWork(callee)) out.push_back(n);
    }
    return false;
  });
}

void Scan(const std::vector<SyntaxNode>& statements, Names& names, std::vector<SyntaxNode>& ops,
          int depth) {
  if (depth > 16) return;
  for (const SyntaxNode& s : statements) {
    if (s.Is("with_statement")) {
      Scan(s.field("body").code_children(), names, ops, depth + 1);
      continue;
    }
    if (!s.Is("expression_statement")) continue;
    for (const SyntaxNode& e : s.code_children()) {
      const bool assigns = e.Is("assignment") || e.Is("augmented_assignment");
      const SyntaxNode value = assigns ? e.field("right") : e;
      if (value.null() || !Mentions(value, names) || !OnlyInputCalls(value)) continue;
      CollectOps(value, ops);
      if (assigns) {
        for (const std::string& n : NamesBound(e.field("left"))) names.insert(n);
      }
    }
  }
}

}  // namespace

Names NamesBound(const SyntaxNode& left) {
  Names out;
  if (left.Is("identifier")) {
    out.emplace(left.text());
  } else if (left.Is("pattern_list") || left.Is("tuple_pattern") || left.Is("list_pattern") ||
             left.Is("expression_list") || left.Is("tuple")) {
    for (const SyntaxNode& c : left.code_children()) {
      for (const std::string& n : NamesBound(c)) out.insert(n);
    }
  }
  return out;
}

std::vector<SyntaxNode> StatementsAfter(const SyntaxNode& statement) {
  std::vector<SyntaxNode> out;
  SyntaxNode s = statement;
  // Out of the `with` blocks around it too (seed 001's tf.name_scope nest), to the def's body.
  for (int depth = 0; depth < 16; ++depth) {
    const SyntaxNode block = s.parent();
    if (block.null()) break;
    for (const SyntaxNode& c : block.code_children()) {
      if (c.start_byte() >= s.end_byte()) out.push_back(c);
    }
    if (!block.parent().Is("with_statement")) break;
    s = block.parent();
  }
  return out;
}

std::optional<WorkAfterPipeline> TensorFlowWorkOn(const std::vector<SyntaxNode>& statements,
                                                  Names names) {
  if (names.empty()) return std::nullopt;
  std::vector<SyntaxNode> ops;
  Scan(statements, names, ops, 0);
  if (ops.empty()) return std::nullopt;
  WorkAfterPipeline work;
  work.at = ops.front().start();
  for (const SyntaxNode& op : ops) {
    const std::string_view callee = op.field("function").text();
    work.ops.emplace_back(callee.substr(callee.rfind('.') + 1));
  }
  return work;
}

std::string WorkAfterPipelineNote(const WorkAfterPipeline& work, const std::string& where) {
  std::vector<std::string> distinct;
  for (const std::string& op : work.ops) {
    if (std::find(distinct.begin(), distinct.end(), op) == distinct.end()) distinct.push_back(op);
  }
  constexpr size_t kMostNamed = 5;
  std::string named;
  for (size_t i = 0; i < distinct.size() && i < kMostNamed; ++i) {
    named += (i ? ", " : "") + distinct[i];
  }
  if (distinct.size() > kMostNamed) named += ", …";
  const size_t n = work.ops.size();
  return where + ", the code runs " + std::to_string(n) + " TensorFlow op" + (n == 1 ? "" : "s") +
         " on each element (" + named +
         "): in the training loop, after the element arrives, where nothing runs them ahead of "
         "the step; the simulation leaves them out (their time is the step's: "
         "train_step.step_time); as a map of the dataset (ds.map(fn, "
         "num_parallel_calls=tf.data.AUTOTUNE), before its prefetch) they run in parallel, "
         "ahead of the step";
}

}  // namespace pipescope::code

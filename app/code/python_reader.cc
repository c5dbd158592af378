#include "app/code/python_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "app/code/path_values.h"
#include "app/code/string_format.h"
#include "app/code/tensor_values.h"
#include "engine/spec/op_values.h"

namespace pipescope::code {

namespace {

// A list comprehension longer than this is read as unknown: its items are each a value the
// reader holds (a file list of a million shards is a count the user sets).
constexpr int64_t kLongestListRead = 100'000;

// Python's escapes in a non-raw string, the common ones; others stay as written.
std::string Unescape(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t k = 0; k < body.size(); ++k) {
    if (body[k] != '\\' || k + 1 == body.size()) {
      out += body[k];
      continue;
    }
    const char c = body[++k];
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case '\n':
        break;
      default:
        out += '\\';
        out += c;
    }
  }
  return out;
}

bool EndsWithPath(const std::string& path, const std::string& key) {
  if (path == key) return true;
  return path.size() > key.size() && path.compare(path.size() - key.size(), key.size(), key) == 0 &&
         path[path.size() - key.size() - 1] == '.';
}

// Calls that hand their first argument on: what `tf.constant(files)` or `sorted(names)`
// holds is what the argument holds, as far as a pipeline cares, and `iter(ds)` is the
// pipeline it iterates.
bool PassesArgumentOn(const std::string& path) {
  static const char* const kPassThrough[] = {
      "tf.constant", "tf.convert_to_tensor", "list", "tuple", "sorted", "tf.identity", "iter",
      // partial(parse, training=True) calls parse: the stage is parse's.
      "functools.partial", "partial"};
  for (const char* p : kPassThrough) {
    if (path == p) return true;
  }
  return false;
}

// What a `for` iterates: `enumerate(loader, 0)`, `tqdm(loader)` and `iter(loader)` iterate
// their first argument.
SyntaxNode Iterated(SyntaxNode iterable) {
  for (int depth = 0; depth < 4 && iterable.Is("call"); ++depth) {
    const std::string_view callee = iterable.field("function").text();
    const auto tail =
        callee.substr(callee.rfind('.') == std::string_view::npos ? 0 : callee.rfind('.') + 1);
    if (tail != "enumerate" && tail != "tqdm" && tail != "iter" && tail != "track") break;
    const auto arguments = iterable.field("arguments").code_children();
    if (arguments.empty() || arguments[0].Is("keyword_argument")) break;
    iterable = arguments[0];
  }
  return iterable;
}

// Whether a loop's body takes an optimiser's step: calls `backward` or `step` (PyTorch's
// loss.backward() and optimizer.step()), Keras's train_on_batch, or a TensorFlow optimizer's
// apply_gradients or minimize (a custom training loop's).
bool Optimises(const SyntaxNode& node) {
  return AnyNodeWithin(node, [](const SyntaxNode& n) {
    if (!n.Is("call")) return false;
    const SyntaxNode f = n.field("function");
    if (!f.Is("attribute")) return false;
    const std::string_view name = f.field("attribute").text();
    return name == "backward" || name == "step" || name == "train_on_batch" ||
           name == "apply_gradients" || name == "minimize";
  });
}

// The components a `for` loop takes each element of its iterable as: the names its target
// unpacks the element into (`x, y` 2; `step, (x, y)` over enumerate(...) 2; a name 1).
int64_t ComponentsTaken(const SyntaxNode& target, const SyntaxNode& iterable) {
  SyntaxNode element = target;
  if (iterable.Is("call") && iterable.field("function").text().ends_with("enumerate") &&
      (target.Is("pattern_list") || target.Is("tuple_pattern"))) {
    const auto parts = target.named_children();
    if (!parts.empty()) element = parts.back();
  }
  while (element.Is("parenthesized_expression") && element.named_children().size() == 1) {
    element = element.named_children()[0];
  }
  if (!element.Is("pattern_list") && !element.Is("tuple_pattern")) return 1;
  int64_t names = 0;
  AnyNodeWithin(element, [&names](const SyntaxNode& n) {
    if (n.Is("identifier")) ++names;
    return false;
  });
  return std::max<int64_t>(1, names);
}

// A def's or lambda's parameter's name (`x`, `x=1`, `x: int`, `*args`).
std::string ParameterName(const SyntaxNode& p) {
  std::string name(p.Is("identifier") ? p.text() : p.field("name").text());
  if (name.empty() && !p.named_children().empty()) name = p.named_children()[0].text();
  return name;
}

// A statement in no loop, def or class: the file runs it once.
bool AtTopLevel(const SyntaxNode& statement) {
  for (SyntaxNode up = statement.parent(); !up.null(); up = up.parent()) {
    if (up.Is("for_statement") || up.Is("while_statement") || up.Is("function_definition") ||
        up.Is("class_definition") || up.Is("lambda")) {
      return false;
    }
  }
  return true;
}

// The range a loop counts: range(...), tf.data's Dataset.range(...) as a loop's counter (the
// tf.data guide's fast_benchmark: `for _ in tf.data.Dataset.range(num_epochs):`), tqdm's
// trange(...) (a range with a progress bar, the same arguments), or the range a progress bar
// goes over (`for epoch in tqdm(range(10)):`, pytorch#12831's loop); null where none.
SyntaxNode CountedRange(const SyntaxNode& e) {
  if (!e.Is("call")) return {};
  const std::string_view callee = e.field("function").text();
  if (callee == "range" || callee.ends_with("data.Dataset.range") || callee == "trange" ||
      callee.ends_with(".trange")) {
    return e;
  }
  if (callee == "tqdm" || callee.ends_with(".tqdm")) {
    const std::vector<SyntaxNode> args = e.field("arguments").code_children();
    if (!args.empty() && !args[0].Is("keyword_argument")) return CountedRange(args[0]);
  }
  return {};
}

bool IsRangeCall(const SyntaxNode& e) { return !CountedRange(e).null(); }

// Whether `name` is assigned in `body` (at any depth but inside a def or a class of its own):
// a loop's body that makes its loader each turn (`loader = make_loader()`).
bool AssignedIn(const SyntaxNode& body, std::string_view name, int depth = 0) {
  if (depth > 64) return false;
  for (const SyntaxNode& c : body.named_children()) {
    if (c.Is("function_definition") || c.Is("class_definition")) continue;
    if (c.Is("assignment") && c.field("left").text() == name) return true;
    if (AssignedIn(c, name, depth + 1)) return true;
  }
  return false;
}

bool IsAcceleratorWord(std::string_view word) {
  for (std::string_view part : {"cuda", "device", "gpu", "xla", "accelerat"}) {
    if (HoldsIgnoringCase(word, part)) return true;
  }
  // Short names whole only: "dumps" and "xmin" are not mps and xm.
  for (std::string_view whole : {"mps", "xm", "tpu"}) {
    if (word.size() == whole.size() && HoldsIgnoringCase(word, whole)) return true;
  }
  return false;
}

// Whether any name or string of the file speaks of an accelerator (`.cuda()`,
// `torch.device("cuda")`, `.to(device)`, `mps`, XLA's `xm`): without one PyTorch computes
// on the CPU.
bool NamesAnAccelerator(const SyntaxNode& node) {
  return AnyNodeWithin(node, [](const SyntaxNode& n) {
    return (n.Is("identifier") || n.Is("string_content")) && IsAcceleratorWord(n.text());
  });
}

// A loop body that does nothing with what it is given (`pass`, `...`, `continue`, `break`):
// a loop that times the loader alone (pytorch#10260's `for _ in loader: pass`;
// tensorflow#47687's `for lrs, hrs in train_data: break`, the first batch's time).
// Code quoted in a note: whole up to 60 characters, else its start and an ellipsis, so that
// a cut is seen as one.
std::string Abridged(std::string_view code) {
  constexpr size_t kMost = 60;
  if (code.size() <= kMost) return std::string(code);
  return std::string(code.substr(0, kMost)) + "…";
}

// A string literal's text without its quotes and prefix; nullopt for anything else.
std::optional<std::string_view> StringLiteral(const SyntaxNode& n) {
  if (!n.Is("string")) return std::nullopt;
  std::string_view content;
  for (const SyntaxNode& c : n.named_children()) {
    if (c.Is("interpolation")) return std::nullopt;  // an f-string's value is the run's
    if (c.Is("string_content")) content = c.text();
  }
  return content;
}

// The statement that hides every GPU from the frameworks, quoted (`os.environ
// ["CUDA_VISIBLE_DEVICES"] = "-1"`, TensorFlow's `tf.config.set_visible_devices([], "GPU")`):
// training then runs on the CPU whatever the rest of the file says. "" where none does.
// A `with tf.device("/cpu:0")` is not one: people put the input pipeline there (the
// performance guide's advice) and train on the GPU.
std::string StatementHidingTheGpu(const SyntaxNode& root) {
  std::string found;
  AnyNodeWithin(root, [&found](const SyntaxNode& n) {
    if (n.Is("assignment")) {
      const SyntaxNode left = n.field("left");
      const auto value = StringLiteral(n.field("right"));
      if (left.Is("subscript") && left.text().find("CUDA_VISIBLE_DEVICES") != std::string::npos &&
          value && (value->empty() || *value == "-1")) {
        found = Abridged(n.text());
      }
    } else if (n.Is("call") && n.field("function").text().ends_with("set_visible_devices")) {
      const auto args = n.field("arguments").code_children();
      if (!args.empty() && args[0].Is("list") && args[0].code_children().empty()) {
        found = Abridged(n.text());
      }
    }
    return !found.empty();
  });
  return found;
}

// A name or a constant: what binding costs nothing a loop's timing counts.
bool NameOrConstant(const SyntaxNode& e) {
  return e.Is("identifier") || e.Is("integer") || e.Is("float") || e.Is("string") || e.Is("true") ||
         e.Is("false") || e.Is("none");
}

// A statement that only prints (`print(f"step {i}")`, `sys.stdout.flush()`): nothing a
// loop's timing counts.
bool Prints(const SyntaxNode& statement) {
  const auto children =
      statement.Is("expression_statement") ? statement.code_children() : std::vector<SyntaxNode>{};
  if (children.size() != 1 || !children[0].Is("call")) return false;
  const std::string_view f = children[0].field("function").text();
  return f == "print" || f == "sys.stdout.flush" || f == "sys.stderr.flush";
}

bool DoesNothing(const SyntaxNode& body) {
  if (body.null()) return false;
  for (const SyntaxNode& s : body.named_children()) {
    // A print of what it took (torchgeo#102's `print(batch)`) is no step's work either.
    if (s.Is("comment") || s.Is("pass_statement") || s.Is("continue_statement") ||
        s.Is("break_statement") || Prints(s)) {
      continue;
    }
    if (s.Is("expression_statement")) {
      const auto children = s.code_children();
      if (children.size() == 1 && (children[0].Is("ellipsis") || children[0].Is("string"))) {
        continue;
      }
      // A benchmark's bookkeeping (`_ = batch`, `count += 1`, keras#15191's loop): names
      // bound and counted, nothing computed.
      if (children.size() == 1 &&
          (children[0].Is("assignment") || children[0].Is("augmented_assignment")) &&
          children[0].field("left").Is("identifier") &&
          NameOrConstant(children[0].field("right"))) {
        continue;
      }
    }
    return false;
  }
  return true;
}

// An except clause's block that only leaves the loop (`break`, `pass`, a print of it).
bool LeavesOnly(const SyntaxNode& block) {
  for (const SyntaxNode& s : block.named_children()) {
    if (s.Is("comment") || s.Is("pass_statement") || s.Is("break_statement") || Prints(s)) {
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace

// A loop there over a dataset is AutoGraph's, in the graph, with no Python per element.
bool InsideTfFunction(const SyntaxNode& node) {
  for (SyntaxNode up = node.parent(); !up.null(); up = up.parent()) {
    if (!up.Is("decorated_definition")) continue;
    for (const SyntaxNode& d : up.named_children()) {
      if (!d.Is("decorator")) continue;
      const std::string_view text = d.text();
      const std::string_view name = text.substr(0, text.find('('));
      if (name.ends_with("tf.function") || name == "@function") return true;
    }
  }
  return false;
}

bool HoldsIgnoringCase(std::string_view word, std::string_view part) {
  return std::search(word.begin(), word.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != word.end();
}

std::string CanonicalPath(const std::string& path) {
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"tensorflow.", "tf."},           {"tf.compat.v1.", "tf."}, {"tf.compat.v2.", "tf."},
      {"tensorflow.compat.v1.", "tf."}, {"tf.keras.", "keras."},  {"tensorflow.keras.", "keras."}};
  std::string p = path;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [from, to] : kPrefixes) {
      const std::string f = from;
      if (p.rfind(f, 0) == 0) {
        p = to + p.substr(f.size());
        changed = true;
      }
    }
  }
  if (p == "tensorflow") p = "tf";
  return p;
}

PythonReader::PythonReader(const PythonTree& tree, std::vector<const Dialect*> dialects)
    : tree_(tree), dialects_(std::move(dialects)) {
  scopes_.emplace_back();
}

void PythonReader::ReadPragmas(const SyntaxNode& node, int depth) {
  if (depth > kMaxNesting) return;
  for (const SyntaxNode& c : node.named_children()) {
    if (!c.Is("comment")) {
      ReadPragmas(c, depth + 1);
      continue;
    }
    const std::string_view text = c.text();
    if (const size_t at = text.find("pipescope:"); at != std::string_view::npos) {
      pragmas_.emplace_back(c.start(), std::string(text.substr(at + 10)));
    }
  }
}

void PythonReader::Read() {
  for (const SyntaxProblem& p : tree_.Problems()) Note(p.at, p.message + ": left out");
  if (tree_.source().find("pipescope:") != std::string::npos) ReadPragmas(tree_.root());
  // Twice: a def may use a function or a constant the file defines below it (Python binds
  // names when the code runs, not when it is read). The first reading binds every name;
  // the second reads each statement with those bindings and is the one kept.
  const std::vector<CodeNote> syntax = notes_;
  ReadBlock(tree_.root());
  ++reading_;
  body_reads_ = 0;
  module_globals_.clear();
  uses_.clear();
  loop_epochs_.clear();
  notes_ = syntax;
  guessed_in_defs_.clear();
  guessed_when_called_.clear();
  defs_called_with_arguments_.clear();
  defs_called_without_.clear();
  ReadBlock(tree_.root());
  if (body_reads_ > kMostBodyReads) {
    Note({.line = 1, .column = 1},
         "the file's calls of its own functions nest too deep and wide to follow each with its "
         "arguments (" +
             std::to_string(kMostBodyReads) +
             " readings): the calls beyond that are read as their defs are, with the "
             "parameters unknown");
  }
  TakeBackResolvedGuesses();
  if (const std::string hiding = StatementHidingTheGpu(tree_.root()); !hiding.empty()) {
    for (PipelineUse& use : uses_) {
      if (!use.trains || use.step_free || use.step_sleep_ns > 0) continue;
      use.trains_on_cpu = true;
      use.cpu_because = "the file hides the GPU (`" + hiding + "`): training runs on the CPU";
    }
  }
}

std::optional<PythonReader::RangeBounds> PythonReader::BoundsOf(const SyntaxNode& loop_over) {
  const SyntaxNode range = CountedRange(loop_over);
  if (range.null()) return std::nullopt;
  std::vector<int64_t> bounds;
  for (const SyntaxNode& arg : range.field("arguments").named_children()) {
    // trange's own keywords (desc=, leave=) are its progress bar's, no bound.
    if (arg.Is("comment") || arg.Is("keyword_argument")) continue;
    const auto v = Evaluate(arg).AsInt();
    if (!v) return std::nullopt;
    bounds.push_back(*v);
  }
  if (bounds.empty() || bounds.size() > 3) return std::nullopt;
  const RangeBounds r{.start = bounds.size() > 1 ? bounds[0] : 0,
                      .stop = bounds.size() > 1 ? bounds[1] : bounds[0],
                      .step = bounds.size() > 2 ? bounds[2] : 1};
  if (r.step == 0) return std::nullopt;  // Python's ValueError
  return r;
}

std::optional<int64_t> PythonReader::IterationsOver(const SyntaxNode& iterated) {
  if (IsRangeCall(iterated)) {
    const auto r = BoundsOf(iterated);
    if (!r) return std::nullopt;
    return engine::RangeLength(r->start, r->stop, r->step);
  }
  return TurnsOver(Evaluate(iterated));
}

std::optional<int64_t> PythonReader::TurnsOver(const Value& iterated) {
  if (iterated.Is(Value::Kind::kList)) return static_cast<int64_t>(iterated.items.size());
  if (iterated.Is(Value::Kind::kTensor)) return FirstDimension(iterated);
  return std::nullopt;
}

std::optional<int64_t> PythonReader::ReadComprehension(const SyntaxNode& comprehension,
                                                       Value* item) {
  std::vector<SyntaxNode> clauses;
  for (const SyntaxNode& c : comprehension.code_children()) {
    if (c.Is("for_in_clause") || c.Is("if_clause")) clauses.push_back(c);
  }
  const bool one_for = clauses.size() == 1 && clauses[0].Is("for_in_clause");
  // Outside a def, the body is read only where it builds a path (its item's store): its
  // calls go to a recorder of its own, as no def's work is being read.
  const SyntaxNode body = comprehension.field("body");
  const bool builds_path =
      body.Is("binary_operator") || body.Is("string") ||
      (body.Is("call") && (std::string_view(body.field("function").text()).ends_with("join") ||
                           std::string_view(body.field("function").text()).ends_with("format")));
  std::vector<RecordedCall> path_calls;
  if (recorders_.empty()) {
    if (!item || !builds_path) {
      return one_for ? IterationsOver(clauses[0].field("right")) : std::nullopt;
    }
    recorders_.push_back(&path_calls);
  }
  scopes_.emplace_back();
  size_t loops = 0;
  std::optional<int64_t> first_turns;
  for (const SyntaxNode& c : clauses) {
    if (!c.Is("for_in_clause")) continue;
    const SyntaxNode right = c.field("right");
    std::optional<int64_t> turns;
    Value first;
    if (IsRangeCall(right)) {
      turns = IterationsOver(right);
    } else {
      const Value iterated = Evaluate(right);
      turns = TurnsOver(iterated);
      if (iterated.Is(Value::Kind::kList) && !iterated.items.empty()) first = iterated.items[0];
    }
    Assign(c.field("left"), first);
    turns_.push_back(turns);
    if (loops++ == 0) first_turns = turns;
  }
  if (comprehension.Is("dictionary_comprehension") && body.Is("pair")) {
    Evaluate(body.field("key"));
    Evaluate(body.field("value"));
  } else {
    Value made = Evaluate(body);
    if (item) *item = std::move(made);
  }
  turns_.resize(turns_.size() - loops);
  scopes_.pop_back();
  if (!recorders_.empty() && recorders_.back() == &path_calls) recorders_.pop_back();
  return one_for ? first_turns : std::nullopt;
}

std::optional<Value> PythonReader::KnownStrings(const SyntaxNode& comprehension) {
  // The file names a list spells: one `for NAME in range(...)`, no `if`, a body of strings.
  constexpr int64_t kMostNames = 4096;
  std::vector<SyntaxNode> clauses;
  for (const SyntaxNode& c : comprehension.code_children()) {
    if (c.Is("for_in_clause") || c.Is("if_clause")) clauses.push_back(c);
  }
  if (clauses.size() != 1 || !clauses[0].Is("for_in_clause")) return std::nullopt;
  const SyntaxNode name = clauses[0].field("left");
  const SyntaxNode range = clauses[0].field("right");
  const SyntaxNode body = comprehension.field("body");
  const bool builds_name = body.Is("binary_operator") || body.Is("string") ||
                           (body.Is("call") && body.field("function").Is("attribute"));
  if (!name.Is("identifier") || !builds_name) return std::nullopt;
  const auto bounds = BoundsOf(range);
  if (!bounds || engine::RangeLength(bounds->start, bounds->stop, bounds->step) > kMostNames) {
    return std::nullopt;
  }
  const auto [start, stop, step] = *bounds;
  Value list{.kind = Value::Kind::kList, .node = comprehension, .written_out = true};
  // The body's calls are recorded nowhere: it builds names, not the work of a def.
  std::vector<RecordedCall> unrecorded;
  recorders_.push_back(&unrecorded);
  for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) {
    scopes_.emplace_back();
    Assign(name, Value{.kind = Value::Kind::kInt, .i = k, .node = name});
    Value item = Evaluate(body);
    scopes_.pop_back();
    if (!item.Is(Value::Kind::kString)) {
      recorders_.pop_back();
      return std::nullopt;
    }
    list.items.push_back(std::move(item));
  }
  recorders_.pop_back();
  return list;
}

std::optional<int64_t> PythonReader::CounterTurns(const SyntaxNode& loop,
                                                  const std::map<std::string, int64_t>& starts) {
  const SyntaxNode condition = loop.field("condition");
  if (!condition.Is("comparison_operator") || !loop.field("alternative").null()) {
    return std::nullopt;
  }
  const auto operands = condition.code_children();
  if (operands.size() != 2 || !operands[0].Is("identifier")) return std::nullopt;
  const std::string counter(operands[0].text());
  std::string op(condition.text().substr(operands[0].end_byte() - condition.start_byte(),
                                         operands[1].start_byte() - operands[0].end_byte()));
  std::erase_if(op, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  const auto start = starts.find(counter);
  const auto limit = Evaluate(operands[1]).AsInt();
  if ((op != "<" && op != "<=") || start == starts.end() || !limit) return std::nullopt;
  // The body steps the counter once by a constant, and nothing leaves the loop early.
  std::optional<int64_t> step;
  std::function<bool(const SyntaxNode&, int)> leaves = [&](const SyntaxNode& n, int d) {
    if (d > 32 || n.Is("break_statement") || n.Is("return_statement") ||
        n.Is("continue_statement")) {
      return true;
    }
    for (const SyntaxNode& c : n.named_children()) {
      if (leaves(c, d + 1)) return true;
    }
    return false;
  };
  for (const SyntaxNode& s : loop.field("body").named_children()) {
    if (leaves(s, 0)) return std::nullopt;
    const auto children =
        s.Is("expression_statement") ? s.code_children() : std::vector<SyntaxNode>{};
    if (children.size() != 1) continue;
    const SyntaxNode& e = children[0];
    const bool assigns = e.Is("assignment") || e.Is("augmented_assignment");
    if (!assigns || e.field("left").text() != counter) continue;
    const auto by = Evaluate(e.field("right")).AsInt();
    const bool adds = e.Is("augmented_assignment") &&
                      e.text().substr(counter.size()).find("+=") != std::string_view::npos;
    if (step || !adds || !by || *by <= 0) {
      return std::nullopt;
    }
    step = by;
  }
  if (!step) return std::nullopt;
  const int64_t span = *limit - start->second + (op == "<=" ? 1 : 0);
  return span <= 0 ? 0 : (span + *step - 1) / *step;
}

std::optional<int64_t> PythonReader::YieldsOf(const SyntaxNode& block, int depth) {
  if (block.null() || depth > 8) return std::nullopt;
  int64_t total = 0;
  // Counters given a constant start in this block (`i = 0` before `while i < stop:`).
  std::map<std::string, int64_t> starts;
  for (const SyntaxNode& s : block.named_children()) {
    if (const auto children =
            s.Is("expression_statement") ? s.code_children() : std::vector<SyntaxNode>{};
        children.size() == 1 && children[0].Is("assignment") &&
        children[0].field("left").Is("identifier")) {
      if (const auto v = Evaluate(children[0].field("right")).AsInt()) {
        starts[std::string(children[0].field("left").text())] = *v;
      } else {
        starts.erase(std::string(children[0].field("left").text()));
      }
    }
    if (!HoldsYield(s)) continue;
    if (s.Is("expression_statement")) {
      const auto children = s.code_children();
      if (children.size() != 1 || !children[0].Is("yield")) return std::nullopt;
      if (!children[0].text().starts_with("yield from")) {
        ++total;
        continue;
      }
      // `yield from range(N)`: what it iterates, one element each.
      const auto from = children[0].named_children();
      const auto times = from.size() == 1 ? IterationsOver(from[0]) : std::nullopt;
      if (!times) return std::nullopt;
      total += *times;
    } else if (s.Is("for_statement") && s.field("alternative").null()) {
      const auto each = YieldsOf(s.field("body"), depth + 1);
      const auto times = each ? IterationsOver(s.field("right")) : std::nullopt;
      if (!times) return std::nullopt;
      total += *each * *times;
    } else if (s.Is("while_statement")) {
      // `i = 0; while i < stop: yield i; i += 1` (the tf.data guide's count(stop)).
      const auto each = YieldsOf(s.field("body"), depth + 1);
      const auto times = each ? CounterTurns(s, starts) : std::nullopt;
      if (!times) return std::nullopt;
      total += *each * *times;
    } else {
      return std::nullopt;
    }
  }
  return total;
}

std::optional<int64_t> PythonReader::YieldsOfMethod(
    const SyntaxNode& def, const std::map<std::string, Value>& attributes) {
  scopes_.push_back(attributes);
  for (const SyntaxNode& p : def.field("parameters").code_children()) {
    if (p.Is("identifier")) Bind(std::string(p.text()), Value{});
  }
  const std::optional<int64_t> yields = YieldsOf(def.field("body"));
  scopes_.pop_back();
  return yields;
}

PythonReader::GeneratorBody PythonReader::ReadGenerator(
    const SyntaxNode& def, const std::vector<Value>& arguments,
    const std::function<bool(const SyntaxNode&)>& plain) {
  GeneratorBody g;
  scopes_.emplace_back();
  size_t k = 0;
  for (const SyntaxNode& p : def.field("parameters").code_children()) {
    const std::string name = ParameterName(p);
    Bind(name, k < arguments.size() ? arguments[k] : DefaultOf(p));
    ++k;
  }
  const SyntaxNode body = def.field("body");
  g.yields = YieldsOf(body);
  bool only_sleeps = true;  // endless or counted by an argument known when the code runs
  bool looped = false;
  for (const SyntaxNode& s : body.named_children()) {
    if (s.Is("comment") || s.Is("pass_statement")) continue;
    if (const auto ns = SleepStatementNs(s)) {
      if (!looped) g.first_sleep_ns += *ns;
      continue;
    }
    if ((s.Is("for_statement") || s.Is("while_statement")) && HoldsYield(s) && !looped) {
      looped = true;
      const SyntaxNode turn = s.field("body");
      const bool one_a_turn = YieldsOf(turn) == std::optional<int64_t>(1);
      int64_t slept = 0;
      for (const SyntaxNode& t : turn.named_children()) {
        if (const auto ns = SleepStatementNs(t)) {
          slept += *ns;
        } else if (!t.Is("comment") && !plain(t)) {
          only_sleeps = false;
        }
      }
      if (one_a_turn) g.sleep_per_yield_ns = slept;
      if (!one_a_turn) only_sleeps = false;
      if (!plain(s.field("right")) || !plain(s.field("condition"))) only_sleeps = false;
      continue;
    }
    if (!plain(s)) only_sleeps = false;
  }
  g.only_sleeps = only_sleeps && looped;
  scopes_.pop_back();
  return g;
}

bool PythonReader::FileNamesAnAccelerator() {
  if (!names_accelerator_) names_accelerator_ = NamesAnAccelerator(tree_.root());
  return *names_accelerator_;
}

Value PythonReader::Drained(const SyntaxNode& e) {
  if (!e.Is("call")) return {};
  const std::string_view callee = e.field("function").text();
  const auto args = e.field("arguments").code_children();
  if ((callee != "list" && callee != "tuple") || args.size() != 1 ||
      args[0].Is("keyword_argument")) {
    return {};
  }
  return Evaluate(args[0]);
}

void PythonReader::NoteGuessedCondition(const SyntaxNode& condition, std::string message) {
  if (!defs_being_defined_.empty()) {
    guessed_in_defs_.push_back({notes_.size(), condition.key(), defs_being_defined_.back()});
  } else {
    guessed_when_called_.insert(condition.key());
  }
  Note(condition.start(), std::move(message));
}

void PythonReader::TakeBackResolvedGuesses() {
  std::set<size_t> taken_back;
  for (const GuessedInDef& g : guessed_in_defs_) {
    if (defs_called_with_arguments_.count(g.def) && !defs_called_without_.count(g.def) &&
        !guessed_when_called_.count(g.condition)) {
      taken_back.insert(g.note);
    }
  }
  // A note made again (a guess the def's reading and a call's both made) is said once.
  std::set<std::tuple<std::string, int, int, std::string>> said;
  std::vector<CodeNote> kept;
  for (size_t i = 0; i < notes_.size(); ++i) {
    if (taken_back.count(i)) continue;
    const CodeNote& n = notes_[i];
    if (!said.insert({std::string(n.at.file_name()), n.at.line, n.at.column, n.message}).second) {
      continue;
    }
    kept.push_back(std::move(notes_[i]));
  }
  notes_ = std::move(kept);
}

int64_t PythonReader::TurnsOfAnAppend(const SyntaxNode& call, const SyntaxNode& made) const {
  if (range_loops_.empty() || range_loops_.back() <= 0 || made.null()) return 1;
  const SyntaxNode statement = call.parent();
  const SyntaxNode body = statement.null() ? SyntaxNode{} : statement.parent();
  const SyntaxNode loop = body.null() ? SyntaxNode{} : body.parent();
  if (!statement.Is("expression_statement") || !body.Is("block") || !loop.Is("for_statement") ||
      loop.field("body").index() != body.index()) {
    return 1;
  }
  const SourcePoint at = loop.start();
  const SourcePoint reading = range_starts_.back();
  const bool innermost =
      at.line == reading.line && at.column == reading.column && at.file == reading.file;
  const bool made_before = made.tree() == loop.tree() && made.end_byte() <= loop.start_byte();
  return innermost && made_before ? range_loops_.back() : 1;
}

bool PythonReader::DerivesFrom(int id, int ancestor) const {
  for (int k = id; k >= 0; k = parent_of_[static_cast<size_t>(k)]) {
    if (k == ancestor) return true;
    const auto taken = taken_in_.find(k);
    if (taken == taken_in_.end()) continue;
    for (const int other : taken->second) {
      if (other < k && DerivesFrom(other, ancestor)) return true;  // made before: no cycle
    }
  }
  return false;
}

std::shared_ptr<Pipeline> PythonReader::NewPipeline(const std::string& framework, SourcePoint at) {
  auto p = std::make_shared<Pipeline>();
  p->framework = framework;
  p->at = at;
  p->source_at = at;
  p->id = static_cast<int>(parent_of_.size());
  p->reading = reading_;
  parent_of_.push_back(-1);
  return p;
}

std::shared_ptr<Pipeline> PythonReader::Extend(const Pipeline& from, SourcePoint at) {
  auto p = std::make_shared<Pipeline>(from);
  p->at = at;
  p->id = static_cast<int>(parent_of_.size());
  p->parent = from.id;
  p->reading = reading_;
  parent_of_.push_back(from.id);
  return p;
}

bool PythonReader::SameBuild(const Pipeline& a, const Pipeline& b) {
  return a.id == b.id || (a.reading != b.reading && a.at.line == b.at.line &&
                          a.at.column == b.at.column && a.at.file_name() == b.at.file_name());
}

const ClassInfo* PythonReader::FindClass(const std::string& name) const {
  const auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

Value PythonReader::ReturnOf(const Value& function) const {
  if (!function.Is(Value::Kind::kFunction) || !function.node.Is("function_definition")) return {};
  const auto it = function_returns_.find(function.node.key());
  return it == function_returns_.end() ? Value{} : it->second;
}

Value PythonReader::Apply(const Value& function, const std::vector<Value>& arguments,
                          const std::map<std::string, Value>& keywords) {
  // A class called is its __new__ given the class first (the tf.data guide's
  // ArtificialDataset, whose __new__ returns a dataset); one without says nothing here.
  if (function.Is(Value::Kind::kClass)) {
    const ClassInfo* c = FindClass(function.s);
    if (!c || !c->methods.count("__new__")) return {};
    std::vector<Value> with_class{Value{.kind = Value::Kind::kClass, .s = function.s}};
    with_class.insert(with_class.end(), arguments.begin(), arguments.end());
    return Apply(
        Value{.kind = Value::Kind::kFunction, .s = "__new__", .node = c->methods.at("__new__")},
        with_class, keywords);
  }
  if (!function.Is(Value::Kind::kFunction) || apply_depth_ > 8) return {};
  // Counted before the parameters: a default may call the function itself (f(x=f())).
  ++apply_depth_;
  const SyntaxNode params = function.node.field("parameters");
  scopes_.emplace_back();
  size_t k = 0;
  for (const SyntaxNode& p : params.code_children()) {
    const std::string name = ParameterName(p);
    // By position, else by its name (make(8, num_epochs=300)), else its default.
    const auto keyword = keywords.find(name);
    Bind(name, k < arguments.size()        ? arguments[k]
               : keyword != keywords.end() ? keyword->second
                                           : DefaultOf(p));
    ++k;
  }
  Value result;
  const auto known = [](const Value& a) { return !a.Is(Value::Kind::kUnknown); };
  const bool known_arguments = std::any_of(arguments.begin(), arguments.end(), known) ||
                               std::any_of(keywords.begin(), keywords.end(),
                                           [&](const auto& kv) { return known(kv.second); });
  if (function.node.Is("lambda")) {
    result = Evaluate(function.node.field("body"));
  } else if (known_arguments && SpendBodyRead()) {
    // A def given a pipeline (configure_for_performance(train_ds)): its body read again
    // with the arguments bound, its return the call's value. A call made while a def is read
    // where it is defined is on that def's guesses, and does not take back the callee's.
    if (defs_being_defined_.empty()) defs_called_with_arguments_.insert(function.node.key());
    const size_t key = std::numeric_limits<size_t>::max() - static_cast<size_t>(apply_depth_);
    open_functions_.push_back(key);
    std::vector<size_t> defining;
    defining.swap(defs_being_defined_);
    InADefsBody body(*this);
    ReadBlock(function.node.field("body"));
    defining.swap(defs_being_defined_);
    open_functions_.pop_back();
    if (const auto it = function_returns_.find(key); it != function_returns_.end()) {
      result = it->second;
      function_returns_.erase(it);
    }
  } else {
    if (defs_being_defined_.empty()) defs_called_without_.insert(function.node.key());
    result = ReturnOf(function);
    // Called from a range of epochs: the pipelines its body loops over go that many times.
    if (!range_loops_.empty() && range_loops_.back() > 0) {
      if (const auto it = def_iterates_.find(function.node.key()); it != def_iterates_.end()) {
        for (const int id : it->second) {
          loop_epochs_.try_emplace(id, LoopEpochs{range_loops_.back(), range_starts_.back()});
        }
      }
    }
  }
  --apply_depth_;
  scopes_.pop_back();
  return result;
}

std::map<std::string, Value> PythonReader::ReadAgain(const SyntaxNode& body,
                                                     std::map<std::string, Value> scope,
                                                     std::vector<RecordedCall>& calls,
                                                     Value* returned) {
  if (apply_depth_ > 8) return scope;
  ++apply_depth_;
  // What it builds and notes stays out of the file's: it was read once already.
  const size_t uses = uses_.size(), notes = notes_.size();
  recorders_.push_back(&calls);
  scopes_.push_back(std::move(scope));
  const size_t key = std::numeric_limits<size_t>::max() - static_cast<size_t>(apply_depth_);
  open_functions_.push_back(key);
  {
    InADefsBody in_body(*this);
    ReadBlock(body);
  }
  open_functions_.pop_back();
  if (const auto it = function_returns_.find(key); it != function_returns_.end()) {
    if (returned) *returned = it->second;
    function_returns_.erase(it);
  }
  std::map<std::string, Value> read = std::move(scopes_.back());
  scopes_.pop_back();
  recorders_.pop_back();
  uses_.resize(uses);
  notes_.resize(notes);
  std::erase_if(guessed_in_defs_, [&](const GuessedInDef& g) { return g.note >= notes; });
  --apply_depth_;
  return read;
}

std::map<std::string, Value> PythonReader::InstanceAttributes(
    const ClassInfo& cls, const CallArgs& made_with, std::vector<RecordedCall>* init_calls) {
  std::map<std::string, Value> attributes = cls.attributes;
  const auto init = cls.methods.find("__init__");
  if (init == cls.methods.end()) {
    // Args(batch_size=64): the fields the arguments name or stand in order for.
    for (size_t k = 0; k < cls.fields.size(); ++k) {
      const auto keyword = made_with.keyword.find(cls.fields[k]);
      if (k < made_with.positional.size()) {
        attributes["self." + cls.fields[k]] = made_with.positional[k];
      } else if (keyword != made_with.keyword.end()) {
        attributes["self." + cls.fields[k]] = keyword->second;
      }
    }
    return attributes;
  }
  // An instance made while its class's __init__ is read (a parameter's default that makes
  // one, `def __init__(self, x=Items())`): the class's attributes, not a reading without end.
  if (!SpendBodyRead() || !instantiating_.insert(cls.name).second) return attributes;
  struct Done {
    std::set<std::string>& classes;
    const std::string& name;
    ~Done() { classes.erase(name); }
  } done{instantiating_, cls.name};
  std::map<std::string, Value> scope = cls.attributes;
  size_t k = 0;
  bool self = true;
  for (const SyntaxNode& p : init->second.field("parameters").code_children()) {
    const std::string name(p.Is("identifier") ? p.text() : p.field("name").text());
    if (std::exchange(self, false)) continue;  // the instance itself
    const auto keyword = made_with.keyword.find(name);
    scope[name] = k < made_with.positional.size()      ? made_with.positional[k]
                  : keyword != made_with.keyword.end() ? keyword->second
                                                       : DefaultOf(p);
    ++k;
  }
  // Lightning's self.save_hyperparameters() keeps __init__'s arguments as self.hparams.x.
  if (init->second.field("body").text().find("save_hyperparameters(") != std::string_view::npos) {
    for (const auto& [name, value] : scope) {
      if (!name.starts_with("self.")) attributes["self.hparams." + name] = value;
    }
  }
  std::vector<RecordedCall> calls;
  for (auto& [name, value] : ReadAgain(init->second.field("body"), std::move(scope), calls)) {
    if (name.starts_with("self.")) attributes[name] = value;
  }
  if (init_calls) *init_calls = std::move(calls);
  return attributes;
}

bool PythonReader::SpendBodyRead() { return ++body_reads_ <= kMostBodyReads; }

std::map<std::string, Value> PythonReader::SelfOf(const ClassInfo& cls,
                                                  std::map<std::string, Value> attributes) {
  for (const auto& [name, method] : cls.methods) {
    attributes.try_emplace("self." + name,
                           Value{.kind = Value::Kind::kFunction, .s = name, .node = method});
  }
  return attributes;
}

std::optional<Value> PythonReader::CallMethodOf(const Value& instance, const std::string& method,
                                                const CallArgs& args) {
  const ClassInfo* cls = FindClass(instance.s);
  if (!cls || method == "__init__") return std::nullopt;
  const auto def = cls->methods.find(method);
  if (def == cls->methods.end()) return std::nullopt;
  // Its body sees what the constructor's arguments gave (Wrapper(4)'s self.num_workers = 4),
  // where the reading of the class saw the parameters' defaults.
  scopes_.push_back(
      SelfOf(*cls, instance.call ? InstanceAttributes(*cls, *instance.call) : cls->attributes));
  std::vector<Value> positional{instance};
  positional.insert(positional.end(), args.positional.begin(), args.positional.end());
  Value r = Apply(Value{.kind = Value::Kind::kFunction, .s = method, .node = def->second},
                  positional, args.keyword);
  scopes_.pop_back();
  if (r.Is(Value::Kind::kUnknown)) {
    // Known by the call that made it (a generator method's, fit_generator(gen.next_train())).
    r.node = args.node;
    r.call = std::make_shared<const CallArgs>(args);
  }
  return r;
}

std::vector<RecordedCall> PythonReader::CallsIn(const SyntaxNode& method,
                                                const std::map<std::string, Value>& attributes,
                                                Value* returned) {
  std::map<std::string, Value> scope = attributes;
  for (const SyntaxNode& p : method.field("parameters").code_children()) {
    if (p.Is("identifier")) scope[std::string(p.text())] = Value{};
    if (p.Is("default_parameter") || p.Is("typed_default_parameter")) {
      scope[std::string(p.field("name").text())] = DefaultOf(p);
    }
  }
  // Read as a call given arguments is: a guess its definition's reading made, and this
  // reading settles (`isinstance(self.output_size, int)` on Rescale(256)), is taken back.
  if (defs_being_defined_.empty()) defs_called_with_arguments_.insert(method.key());
  std::vector<RecordedCall> calls;
  ReadAgain(method.field("body"), std::move(scope), calls, returned);
  return calls;
}

Value PythonReader::DefaultOf(const SyntaxNode& parameter) {
  if (!parameter.Is("default_parameter") && !parameter.Is("typed_default_parameter")) return {};
  return Evaluate(parameter.field("value"));
}

void PythonReader::Bind(const std::string& name, const Value& value) {
  if (!name.empty()) scopes_.back()[name] = value;
}

const Value* PythonReader::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (const auto found = it->find(name); found != it->end()) return &found->second;
  }
  // A module's function called from the file: its own module's constants and imports, where
  // the file has none of that name (both usually import tensorflow as tf alike).
  for (const auto* names : module_globals_) {
    if (const auto found = names->find(name); found != names->end()) return &found->second;
  }
  return nullptr;
}

void PythonReader::Use(const Value& value, const std::string& variable, const SyntaxNode& at,
                       bool trains) {
  if (value.Is(Value::Kind::kPipeline) && value.pipeline) {
    uses_.push_back({value.pipeline, variable, at.start(), trains});
  }
}

void PythonReader::Trains(const Value& pipeline, const SyntaxNode& at) {
  Use(pipeline, "", at, true);
}

void PythonReader::ReadBlock(const SyntaxNode& block) {
  for (const SyntaxNode& s : block.named_children()) {
    if (returned_) return;  // the def returned above: the rest does not run
    ReadStatement(s);
  }
}

std::optional<int64_t> PythonReader::SleepStatementNs(const SyntaxNode& statement) {
  const auto children =
      statement.Is("expression_statement") ? statement.code_children() : std::vector<SyntaxNode>{};
  if (children.size() != 1 || !children[0].Is("call")) return std::nullopt;
  const Value callee = Evaluate(children[0].field("function"));
  // A def of the file's that only sleeps (tensorflow#44274's `sleep_delay()`, a
  // time.sleep(0.1) in a def of its own): its sleep, a level or two down.
  if (callee.Is(Value::Kind::kFunction) && callee.node.Is("function_definition") &&
      sleep_defs_followed_ < 2) {
    ++sleep_defs_followed_;
    const int64_t slept = OnlySleeps(callee.node.field("body"));
    --sleep_defs_followed_;
    return slept > 0 ? std::optional<int64_t>(slept) : std::nullopt;
  }
  if (!callee.Is(Value::Kind::kSymbol) || CanonicalPath(callee.s) != "time.sleep") {
    return std::nullopt;
  }
  const auto args = children[0].field("arguments").code_children();
  return args.size() == 1 ? Evaluate(args[0]).AsSleepNs() : std::nullopt;
}

bool PythonReader::OnlyClocks(const SyntaxNode& n, int depth) {
  if (depth > 32) return false;
  if (n.Is("call")) {
    const Value f = Evaluate(n.field("function"));
    if (!f.Is(Value::Kind::kSymbol) || !CanonicalPath(f.s).starts_with("time.")) return false;
  }
  for (const SyntaxNode& c : n.named_children()) {
    if (!OnlyClocks(c, depth + 1)) return false;
  }
  return true;
}

bool PythonReader::TimingOnly(const SyntaxNode& s, int64_t& slept) {
  if (s.Is("comment") || s.Is("pass_statement") || Prints(s)) return true;
  // The loop's own timing (`t0 = time.time()`, `waited = time.perf_counter() - t0`).
  const auto children =
      s.Is("expression_statement") ? s.code_children() : std::vector<SyntaxNode>{};
  if (children.size() == 1 && children[0].Is("assignment") &&
      OnlyClocks(children[0].field("right"), 0)) {
    return true;
  }
  const auto ns = SleepStatementNs(s);
  if (!ns) return false;
  slept += *ns;
  return true;
}

int64_t PythonReader::OnlySleeps(const SyntaxNode& body) {
  if (body.null()) return 0;
  int64_t slept = 0;
  for (const SyntaxNode& s : body.named_children()) {
    if (!TimingOnly(s, slept)) return 0;
  }
  return slept;
}

Value PythonReader::NextTaken(const SyntaxNode& statement, std::string* spelled) {
  const auto children =
      statement.Is("expression_statement") ? statement.code_children() : std::vector<SyntaxNode>{};
  if (children.size() != 1) return {};
  const SyntaxNode call = children[0].Is("assignment") ? children[0].field("right") : children[0];
  if (!call.Is("call")) return {};
  const SyntaxNode f = call.field("function");
  const auto args = call.field("arguments").code_children();
  Value taken;
  if (f.Is("attribute") && args.empty() &&
      (f.field("attribute").text() == "next" || f.field("attribute").text() == "__next__")) {
    taken = Evaluate(f.field("object"));  // gen.next(), Keras's iterators' own spelling
    if (spelled) *spelled = f.field("object").text();
  } else if (f.Is("identifier") && f.text() == "next" && args.size() == 1) {
    taken = Evaluate(args[0]);  // next(it)
    if (spelled) *spelled = args[0].text();
  }
  return taken.Is(Value::Kind::kPipeline) ? taken : Value{};
}

std::optional<PythonReader::NextAndSleep> PythonReader::TakesNextThenSleeps(
    const SyntaxNode& body) {
  if (body.null()) return std::nullopt;
  NextAndSleep found;
  for (const SyntaxNode& s : body.named_children()) {
    if (TimingOnly(s, found.slept_ns)) continue;
    const Value taken = NextTaken(s, &found.spelled);
    if (!taken.Is(Value::Kind::kPipeline) || found.pipeline.Is(Value::Kind::kPipeline)) {
      return std::nullopt;
    }
    found.pipeline = taken;
  }
  if (!found.pipeline.Is(Value::Kind::kPipeline)) return std::nullopt;
  return found;
}

void PythonReader::TimesNextAlone(const SyntaxNode& loop) {
  if (const Value ran = OnlyRunsNext(loop.field("body")); ran.Is(Value::Kind::kPipeline)) {
    Trains(ran, loop);
    uses_.back().step_free = true;
  } else if (const auto taken = TakesNextThenSleeps(loop.field("body"))) {
    // keras#9332: `X, Y = gen.next()` then `time.sleep(3)` for the GPU's work: the sleep is
    // the step, as it is in a loop over the pipeline.
    Trains(taken->pipeline, loop);
    if (taken->slept_ns > 0) {
      uses_.back().step_sleep_ns = taken->slept_ns;
    } else {
      uses_.back().step_free = true;
    }
    const Pipeline* p = taken->pipeline.pipeline.get();
    if (p && !p->ops.empty() && p->ops.back().has_keras_fit()) {
      // Its workers and queue are fit's (Dref360's answer in keras#9332): a batch taken by
      // hand is made then, on the loop's thread.
      Note(loop.start(), "the loop takes " + p->ops.back().name() +
                             "'s batches by hand, each made when it is asked for: Keras makes "
                             "them ahead, in workers, only inside fit(" +
                             taken->spelled +
                             ", workers=N) (or a keras.utils.OrderedEnqueuer); the spec's "
                             "workers stand for that");
      uses_.back().taken_by_hand =
          "the loop at line " + std::to_string(loop.start().line) + " takes " + taken->spelled +
          "'s batches by hand: Keras runs its workers only inside model.fit(" + taken->spelled +
          ", workers=..., use_multiprocessing=...), or in a keras.utils.OrderedEnqueuer(" +
          taken->spelled +
          ", use_multiprocessing=...) whose start(workers=...) runs them, the loop taking "
          "next() of its get(): train that way for the tuned workers";
    }
  }
}

bool PythonReader::TrainsThrough(const SyntaxNode& body) {
  if (Optimises(body)) return true;
  return AnyNodeWithin(body, [this](const SyntaxNode& n) {
    if (!n.Is("call")) return false;
    const SyntaxNode f = n.field("function");
    if (!f.Is("identifier") && !f.Is("attribute")) return false;
    const Value callee = Evaluate(f);
    return callee.Is(Value::Kind::kFunction) && !callee.node.null() &&
           callee.node.Is("function_definition") && Optimises(callee.node.field("body"));
  });
}

Value PythonReader::OnlyRunsNext(const SyntaxNode& body) {
  if (body.null()) return {};
  Value ran;
  for (const SyntaxNode& s : body.named_children()) {
    if (s.Is("comment") || s.Is("pass_statement")) continue;
    if (s.Is("try_statement")) {
      // try: sess.run(x) / except tf.errors.OutOfRangeError: break
      for (const SyntaxNode& c : s.named_children()) {
        if (!c.Is("except_clause")) continue;
        for (const SyntaxNode& e : c.named_children()) {
          if (e.Is("block") && !LeavesOnly(e)) return {};
        }
      }
      const Value inner = OnlyRunsNext(s.field("body"));
      if (!inner.Is(Value::Kind::kPipeline)) return {};
      ran = inner;
      continue;
    }
    const auto children =
        s.Is("expression_statement") ? s.code_children() : std::vector<SyntaxNode>{};
    if (children.size() != 1) return {};
    // `x = sess.run(next_element)`: the loop does nothing else with x, so it runs next alone.
    const SyntaxNode call = children[0].Is("assignment") ? children[0].field("right") : children[0];
    if (!call.Is("call")) return {};
    const SyntaxNode f = call.field("function");
    if (!f.Is("attribute") || f.field("attribute").text() != "run") return {};
    const auto args = call.field("arguments").code_children();
    const Value fetched = args.size() == 1 ? Evaluate(args[0]) : Value{};
    if (!fetched.Is(Value::Kind::kPipeline)) return {};
    ran = fetched;
  }
  return ran;
}

bool PythonReader::TooDeep(const SyntaxNode& node) {
  if (nesting_ <= kMaxNesting) return false;
  if (!noted_too_deep_) {
    Note(node.start(), "code nested deeper than " + std::to_string(kMaxNesting) +
                           " levels: what is inside is left out");
    noted_too_deep_ = true;
  }
  return true;
}

void PythonReader::ReadStatement(const SyntaxNode& s) {
  const Nesting nesting(nesting_);
  if (TooDeep(s)) return;
  const std::string_view t = s.type();
  if (t == "expression_statement") {
    for (const SyntaxNode& e : s.code_children()) {
      if (e.Is("assignment")) {
        const Value v = Evaluate(e.field("right"));
        Assign(e.field("left"), v);
      } else if (e.Is("augmented_assignment")) {
        Assign(e.field("left"), Value{});
      } else if (const Value drained = Drained(e); drained.Is(Value::Kind::kPipeline)) {
        // list(loader) as a statement: every element taken and none used, a loader timed
        // alone (pytorch#106704), as `for batch in loader: pass` is.
        Trains(drained, e);
        uses_.back().step_free = true;
        uses_.back().single_pass = AtTopLevel(s);
        // In the epochs' loop (`for _ in range(100): list(dl_torch)`): an epoch a turn.
        if (drained.pipeline && !range_first_ids_.empty()) {
          EpochsOfTheLoopAround(drained, drained.pipeline->id >= range_first_ids_.back());
        }
      } else {
        Use(Evaluate(e), "", e);
      }
    }
  } else if (t == "function_definition") {
    ReadFunction(s, nullptr);
  } else if (t == "class_definition") {
    ReadClass(s);
  } else if (t == "decorated_definition") {
    ReadStatement(s.field("definition"));
  } else if (t == "return_statement") {
    const auto children = s.code_children();
    const Value v = children.empty() ? Value{} : Evaluate(children[0]);
    if (!open_functions_.empty() && !v.Is(Value::Kind::kUnknown)) {
      function_returns_[open_functions_.back()] = v;
    }
    Use(v, "", s);
    if (!open_functions_.empty() && guessed_paths_ == 0) returned_ = true;
  } else if (t == "import_statement" || t == "import_from_statement") {
    ReadImport(s);
  } else if (t == "for_statement") {
    // `for images, labels in loader:` whose body trains (loss.backward(), optimizer.step()):
    // the loader a training loop consumes, read before an evaluation loop's.
    const bool idle = DoesNothing(s.field("body"));
    const int64_t sleeps = idle ? 0 : OnlySleeps(s.field("body"));
    // What the loop goes over, evaluated once for both readings below: a call (`for x in
    // self.train_loader():`) runs its def each time.
    const SyntaxNode iterated_node = Iterated(s.field("right"));
    std::optional<Value> iterated_once;
    const auto iterated_value = [&]() -> const Value& {
      if (!iterated_once) iterated_once = Evaluate(iterated_node);
      return *iterated_once;
    };
    if (idle || sleeps > 0 || TrainsThrough(s.field("body"))) {
      if (const Value& iterated = iterated_value(); iterated.Is(Value::Kind::kPipeline)) {
        Trains(iterated, s);
        if (idle) uses_.back().step_free = true;
        uses_.back().single_pass = AtTopLevel(s);
        uses_.back().step_sleep_ns = sleeps;
        if (iterated.pipeline && iterated.pipeline->framework == "tfdata" && !InsideTfFunction(s)) {
          uses_.back().eager_components = ComponentsTaken(s.field("left"), s.field("right"));
        }
        if (!idle && sleeps == 0 && iterated.pipeline &&
            iterated.pipeline->framework == "pytorch" && !FileNamesAnAccelerator()) {
          uses_.back().trains_on_cpu = true;
          uses_.back().cpu_because =
              "the training loop moves nothing to an accelerator (no .cuda(), no .to(device)): "
              "PyTorch trains on the CPU";
        }
      }
    } else if (iterated_node.Is("identifier") || iterated_node.Is("attribute") ||
               iterated_node.Is("call")) {
      if (const Value& iterated = iterated_value(); iterated.Is(Value::Kind::kPipeline)) {
        Use(iterated, "", s);
        uses_.back().consumed = true;
        uses_.back().single_pass = AtTopLevel(s);
      }
    }
    // A loop over a pipeline inside `for epoch in range(N):` (directly, or in a def the
    // epochs' loop calls): the pipeline's epochs. One a call makes in the loop
    // (`self.train_loader()`) is made each epoch.
    const bool in_epochs = !range_loops_.empty() && range_loops_.back() > 0;
    if ((in_epochs || !defs_being_defined_.empty()) &&
        (iterated_node.Is("identifier") || iterated_node.Is("attribute") ||
         iterated_node.Is("call"))) {
      if (const Value& v = iterated_value(); v.Is(Value::Kind::kPipeline) && v.pipeline) {
        if (in_epochs) {
          EpochsOfTheLoopAround(v, iterated_node.Is("call") ||
                                       v.pipeline->id >= range_first_ids_.back() ||
                                       AssignedIn(range_bodies_.back(), iterated_node.text()));
        }
        if (!defs_being_defined_.empty())
          def_iterates_[defs_being_defined_.back()].insert(v.pipeline->id);
      }
    }
    const SyntaxNode right = s.field("right");
    const bool over_range = IsRangeCall(right);
    // How often the body runs: a range's count, or (while a function's calls are recorded,
    // for RecordedCall::times) the items of what it goes over, each evaluated once.
    const std::optional<int64_t> iterations =
        over_range || !recorders_.empty() ? IterationsOver(right) : std::nullopt;
    // A loop that yields hands out a sample a turn: the calls in it are a sample's, once (an
    // IterableDataset's generator read as a cost per sample yielded).
    const std::optional<int64_t> turns =
        HoldsYield(s) && !recorders_.empty() ? std::optional<int64_t>(1) : iterations;
    range_loops_.push_back(over_range ? iterations.value_or(0) : 0);
    range_starts_.push_back(s.start());
    range_first_ids_.push_back(static_cast<int>(parent_of_.size()));
    range_bodies_.push_back(s.field("body"));
    Assign(s.field("left"), Value{});
    TimesNextAlone(s);
    turns_.push_back(turns);
    {
      OnAGuessedPath may_not_run(*this);  // a loop may end before its body returns, or not turn
      ReadBlock(s.field("body"));
    }
    turns_.pop_back();
    range_loops_.pop_back();
    range_starts_.pop_back();
    range_first_ids_.pop_back();
    range_bodies_.pop_back();
    if (const SyntaxNode alt = s.field("alternative"); !alt.null()) ReadBlock(alt);
  } else if (t == "with_statement") {
    // `with Image.open(f) as img:` (torchvision's pil_loader): the items' calls are the
    // body's to make, and `img` what the call gives.
    for (const SyntaxNode& clause : s.code_children()) {
      if (!clause.Is("with_clause")) continue;
      for (const SyntaxNode& item : clause.code_children()) {
        const SyntaxNode value = item.field("value");
        if (!value.Is("as_pattern")) {
          Evaluate(value);
          continue;
        }
        const auto parts = value.code_children();
        const Value made = parts.empty() ? Value{} : Evaluate(parts[0]);
        const SyntaxNode alias = value.field("alias");
        const auto targets = alias.code_children();
        if (!targets.empty()) Assign(targets[0], made);
      }
    }
    for (const SyntaxNode& c :
         s.field("body").null() ? s.named_children() : std::vector<SyntaxNode>{s.field("body")}) {
      if (c.Is("block")) ReadBlock(c);
    }
  } else if (t == "if_statement") {
    ReadIf(s);
  } else if (t == "while_statement" || t == "try_statement" || t == "elif_clause" ||
             t == "else_clause" || t == "except_clause" || t == "finally_clause" || t == "block" ||
             t == "module") {
    if (t == "while_statement") TimesNextAlone(s);
    OnAGuessedPath loop(*this, t == "while_statement");
    for (const SyntaxNode& c : s.named_children()) {
      if (returned_) break;  // a try's body that returned: its else clause is not run
      if (c.Is("block") || c.type().ends_with("_clause")) {
        OnAGuessedPath on_error(*this, c.Is("except_clause"));
        c.Is("block") ? ReadBlock(c) : ReadStatement(c);
      }
    }
  }
}

namespace {

// A condition's truth where the code makes it a constant (fused = True; if fused:).
std::optional<bool> Truth(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kBool:
      return v.b;
    case Value::Kind::kInt:
      return v.i != 0;
    case Value::Kind::kNone:
      return false;
    case Value::Kind::kString:
      return !v.s.empty();
    default:
      return std::nullopt;
  }
}

}  // namespace

// Only the branch the code takes: its condition's value where the code makes it a constant,
// else the first branch, as if true, with a note naming what the others would build.
void PythonReader::ReadIf(const SyntaxNode& s) {
  std::vector<std::pair<SyntaxNode, SyntaxNode>> branches;  // (condition, block); else: null
  branches.emplace_back(s.field("condition"), s.field("consequence"));
  for (const SyntaxNode& c : s.named_children()) {
    if (c.Is("elif_clause")) branches.emplace_back(c.field("condition"), c.field("consequence"));
    if (c.Is("else_clause")) branches.emplace_back(SyntaxNode(), c.field("body"));
  }
  for (const auto& [condition, block] : branches) {
    if (condition.null()) {
      ReadBlock(block);
      return;
    }
    const std::optional<bool> truth = Truth(Evaluate(condition));
    if (truth.value_or(true)) {
      if (!truth && branches.size() > 1) {
        NoteGuessedCondition(condition, "the condition `" + Abridged(condition.text()) +
                                            "` is known only when the code runs: read as true, "
                                            "the other branches left out");
      }
      OnAGuessedPath guessed(*this, !truth.has_value());
      ReadBlock(block);
      return;
    }
  }
}

void PythonReader::ReadFunction(const SyntaxNode& def, ClassInfo* owner) {
  Value f;
  f.kind = Value::Kind::kFunction;
  f.s = std::string(def.field("name").text());
  f.node = def;
  if (owner) {
    owner->methods[f.s] = def;
  } else {
    Bind(f.s, f);
  }
  // The body is read once, here, with its parameters unknown: what a def builds does not
  // depend on its arguments in the code people write for pipelines (a function that
  // returns its dataset, a parser that calls parse_single_example on its record).
  scopes_.emplace_back();
  if (owner) {
    // `self.compute` is the class's method (`ds.map(self.compute)`, tensorflow#40755): those
    // defined so far, and those the first reading found below.
    scopes_.back() = SelfOf(*owner, owner->attributes);
    if (const ClassInfo* read_before = FindClass(owner->name)) {
      scopes_.back() = SelfOf(*read_before, std::move(scopes_.back()));
    }
  }
  for (const SyntaxNode& p : def.field("parameters").code_children()) {
    if (p.Is("identifier")) Bind(std::string(p.text()), Value{});
    if (p.Is("default_parameter") || p.Is("typed_default_parameter")) {
      Bind(std::string(p.field("name").text()), DefaultOf(p));
    }
  }
  open_functions_.push_back(def.key());
  defs_being_defined_.push_back(def.key());
  std::vector<RecordedCall> calls;
  recorders_.push_back(&calls);
  {
    InADefsBody body(*this);
    ReadBlock(def.field("body"));
  }
  recorders_.pop_back();
  defs_being_defined_.pop_back();
  calls_in_[def.key()] = std::move(calls);
  open_functions_.pop_back();
  if (owner && f.s == "__init__") {
    for (const auto& [name, value] : scopes_.back()) {
      if (name.starts_with("self.")) owner->attributes[name] = value;
    }
  }
  scopes_.pop_back();
  if (owner) {
    const auto it = function_returns_.find(def.key());
    if (it != function_returns_.end()) owner->returns[f.s] = it->second;
  }
}

void PythonReader::ReadClass(const SyntaxNode& def) {
  ClassInfo info;
  info.name = std::string(def.field("name").text());
  for (const SyntaxNode& base : def.field("superclasses").code_children()) {
    info.bases.emplace_back(base.text());
  }
  // A class of the file's own that it derives from lends it what it does not define itself:
  // methods, their returns and what its __init__ binds to self (monodepth2's KITTIRAWDataset
  // takes __getitem__ and its loader from MonoDataset). The first base's come first, as
  // Python's method order has them; the class's own definitions replace them.
  // Python writes the __init__ of a @dataclass and of a NamedTuple's subclass from its fields.
  const SyntaxNode decorated = def.parent();
  const bool fields_make_init =
      (decorated.Is("decorated_definition") &&
       decorated.text().substr(0, decorated.text().find("class ")).find("dataclass") !=
           std::string_view::npos) ||
      std::any_of(info.bases.begin(), info.bases.end(),
                  [](const std::string& b) { return b.ends_with("NamedTuple"); });
  for (const std::string& base : info.bases) {
    const auto inherited = classes_.find(base);
    if (inherited == classes_.end()) continue;
    if (fields_make_init) {
      info.fields.insert(info.fields.end(), inherited->second.fields.begin(),
                         inherited->second.fields.end());
    }
    info.methods.insert(inherited->second.methods.begin(), inherited->second.methods.end());
    info.returns.insert(inherited->second.returns.begin(), inherited->second.returns.end());
    info.attributes.insert(inherited->second.attributes.begin(),
                           inherited->second.attributes.end());
  }
  scopes_.emplace_back();
  std::set<std::string> field_defaults;  // fields whose default is field(default=...)'s
  for (const SyntaxNode& s : def.field("body").named_children()) {
    const SyntaxNode d = s.Is("decorated_definition") ? s.field("definition") : s;
    if (d.Is("function_definition")) {
      ReadFunction(d, &info);
    } else {
      ReadStatement(d);
      const auto parts = d.code_children();
      if (fields_make_init && parts.size() == 1 && parts[0].Is("assignment") &&
          !parts[0].field("type").null() && parts[0].field("left").Is("identifier")) {
        const std::string field(parts[0].field("left").text());
        info.fields.push_back(field);
        // `workers: int = field(default=4)` (dataclasses.field): its default is the value.
        const SyntaxNode right = parts[0].field("right");
        if (right.Is("call") && (right.field("function").text() == "field" ||
                                 right.field("function").text().ends_with(".field"))) {
          for (const SyntaxNode& a : right.field("arguments").code_children()) {
            if (a.Is("keyword_argument") && a.field("name").text() == "default") {
              info.attributes["self." + field] = Evaluate(a.field("value"));
              field_defaults.insert(field);
            }
          }
        }
      }
      // A class attribute (`batch_size = 64` in its body): what self.batch_size is, unless
      // __init__ binds it again; the body's own in place of a base class's.
      for (const auto& [name, value] : scopes_.back()) {
        if (!value.Is(Value::Kind::kFunction) && !value.Is(Value::Kind::kClass) &&
            !field_defaults.count(name)) {
          info.attributes["self." + name] = value;
        }
      }
    }
  }
  scopes_.pop_back();
  Value c;
  c.kind = Value::Kind::kClass;
  c.s = info.name;
  c.node = def;
  classes_[info.name] = std::move(info);
  Bind(c.s, c);
}

void PythonReader::ReadImport(const SyntaxNode& s) {
  std::string module;
  const bool from = s.Is("import_from_statement");
  if (from) module = std::string(s.field("module_name").text());
  const Module* from_module = from ? LocalModule(module, s) : nullptr;
  for (const SyntaxNode& c : s.code_children()) {
    if (from && c.start_byte() == s.field("module_name").start_byte()) continue;
    if (c.Is("wildcard_import")) {
      // `from utils import *`: the module's public names.
      if (!from_module) continue;
      for (const auto& [name, value] : from_module->names) {
        if (!name.starts_with('_') && name.find('.') == std::string::npos) Bind(name, value);
      }
      continue;
    }
    std::string name, alias;
    if (c.Is("aliased_import")) {
      name = std::string(c.field("name").text());
      alias = std::string(c.field("alias").text());
    } else if (c.Is("dotted_name")) {
      name = std::string(c.text());
      // `import tensorflow.compat.v1` binds `tensorflow`; its attributes spell the rest.
      alias = from ? name : name.substr(0, name.find('.'));
    } else {
      continue;
    }
    Value v;
    v.kind = Value::Kind::kSymbol;
    v.s = from ? module + "." + name : alias == name || c.Is("aliased_import") ? name : alias;
    v.node = c;
    if (from) {
      // `from utils import load_image`: what the module binds to the name, as Python looks
      // there first; else `from data import augment` (`from . import augment`): a module of
      // the package, by its names, whether or not the package has an __init__.py.
      const auto bound = from_module ? from_module->names.find(name)
                                     : std::map<std::string, Value>::const_iterator();
      const bool known = from_module && bound != from_module->names.end();
      const std::string sub_path = module.ends_with('.') ? module + name : module + "." + name;
      if (known && !bound->second.Is(Value::Kind::kSymbol)) {
        v = bound->second;
      } else if (const Module* sub = LocalModule(sub_path, s)) {
        BindModule(alias, *sub);
      } else if (known) {
        v = bound->second;
      }
    } else {
      if (const Module* m = LocalModule(name, s)) {
        BindModule(c.Is("aliased_import") ? alias : name, *m);
      }
    }
    Bind(alias, v);
  }
}

void PythonReader::BindModule(const std::string& prefix, const Module& module) {
  for (const auto& [name, value] : module.names) {
    if (name.find('.') == std::string::npos) Bind(prefix + "." + name, value);
  }
}

const PythonReader::Module* PythonReader::LocalModule(const std::string& dotted,
                                                      const SyntaxNode& at) {
  if (folder_.empty() || dotted.empty()) return nullptr;
  // `from .utils import x` is relative to the importing file's package, one dot each level;
  // a plain name is found beside the file read, as Python finds it on sys.path[0].
  size_t dots = 0;
  while (dots < dotted.size() && dotted[dots] == '.') ++dots;
  std::filesystem::path base;
  if (dots > 0) {
    base = std::filesystem::path(at.file()).parent_path();
    for (size_t up = 1; up < dots; ++up) base = base.parent_path();
  }
  std::string rest = dotted.substr(dots);
  std::filesystem::path relative = base;
  for (size_t begin = 0; begin < rest.size();) {
    const size_t end = std::min(rest.find('.', begin), rest.size());
    relative /= rest.substr(begin, end - begin);
    begin = end + 1;
  }
  std::error_code error;
  std::filesystem::path found;
  // `from . import x` names the package itself: its __init__.py alone.
  const std::vector<std::filesystem::path> candidates =
      rest.empty()
          ? std::vector<std::filesystem::path>{relative / "__init__.py"}
          : std::vector<std::filesystem::path>{relative.string() + ".py", relative / "__init__.py"};
  for (const std::filesystem::path& candidate : candidates) {
    if (std::filesystem::is_regular_file(folder_ / candidate, error)) {
      found = candidate.lexically_normal();
      break;
    }
  }
  // The modules of one reading: a project's own, not a site-packages' worth.
  constexpr size_t kMostModules = 64;
  constexpr uintmax_t kLargestModule = 4 << 20;
  if (found.empty() || found.string().starts_with("..")) return nullptr;
  const std::string key = found.generic_string();
  auto it = modules_.find(key);
  if (it == modules_.end()) {
    if (modules_.size() >= kMostModules) return nullptr;
    const uintmax_t size = std::filesystem::file_size(folder_ / found, error);
    if (error || size > kLargestModule) return nullptr;
    std::ifstream in(folder_ / found, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) return nullptr;
    Module m;
    // Keys one apart per tree: a def's key in a module never meets one in the file.
    m.tree = std::make_unique<PythonTree>(std::move(text), key,
                                          (modules_.size() + 1) * (size_t{1} << 40));
    it = modules_.emplace(key, std::move(m)).first;
  }
  Module& m = it->second;
  if (m.open) return nullptr;
  if (m.reading == reading_) return &m;
  // Its definitions, in a scope of its own, as importing it runs them; what its code does
  // when run as a script (training loops, an `if __name__ == "__main__":` block) is not
  // this file's, nor any pipeline it builds at its top level.
  m.open = true;
  for (const SyntaxProblem& p : m.tree->Problems()) Note(p.at, p.message + ": left out");
  std::vector<std::map<std::string, Value>> file_scopes;
  file_scopes.swap(scopes_);
  scopes_.emplace_back();
  std::vector<std::vector<RecordedCall>*> file_recorders;
  file_recorders.swap(recorders_);
  const size_t uses = uses_.size();
  for (const SyntaxNode& statement : m.tree->root().named_children()) {
    const std::string_view t = statement.type();
    const bool assignment = t == "expression_statement" && !statement.code_children().empty() &&
                            statement.code_children()[0].Is("assignment");
    if (assignment || t == "import_statement" || t == "import_from_statement" ||
        t == "function_definition" || t == "class_definition" || t == "decorated_definition") {
      ReadStatement(statement);
    }
  }
  uses_.resize(uses);
  m.names = std::move(scopes_.front());
  scopes_.swap(file_scopes);
  recorders_.swap(file_recorders);
  m.open = false;
  m.reading = reading_;
  module_globals_.push_back(&m.names);
  return &m;
}

void PythonReader::Assign(const SyntaxNode& target, const Value& value) {
  if (target.Is("identifier") || target.Is("attribute")) {
    Bind(std::string(target.text()), value);
    Use(value, std::string(target.text()), target);
  } else if (const SyntaxNode holder = target.field("value");
             target.Is("subscript") && (holder.Is("identifier") || holder.Is("attribute"))) {
    // config["workers"] = 5 on a dict the file writes: the dict holds it from here on.
    const Value* dict = Lookup(std::string(holder.text()));
    const auto parts = target.code_children();
    if (!dict || !dict->Is(Value::Kind::kDict) || parts.size() != 2) return;
    const Value key = Evaluate(parts[1]);
    if (!key.Is(Value::Kind::kString)) return;
    Value changed = *dict;
    PutItem(changed, key, value);
    Bind(std::string(holder.text()), changed);
  } else if (target.Is("pattern_list") || target.Is("tuple_pattern") || target.Is("list_pattern")) {
    const auto parts = target.code_children();
    for (size_t k = 0; k < parts.size(); ++k) {
      const bool spread = value.Is(Value::Kind::kList) && value.items.size() == parts.size();
      Assign(parts[k], spread ? value.items[k] : Value{});
    }
    // `features, labels = ds.prefetch(5).make_one_shot_iterator().get_next()`: the names take
    // an element's parts, and the pipeline it comes from, prefetch and all, is the one used.
    Use(value, "", target);
  }
}

Value PythonReader::Literal(const SyntaxNode& node) const {
  Value v;
  v.node = node;
  const std::string_view t = node.type();
  std::string text(node.text());
  if (t == "integer") {
    std::erase(text, '_');
    int base = 10;
    size_t skip = 0;
    if (text.size() > 1 && text[0] == '0' && std::isalpha(static_cast<unsigned char>(text[1]))) {
      const char b = static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])));
      base = b == 'x' ? 16 : b == 'o' ? 8 : b == 'b' ? 2 : 10;
      skip = 2;
    }
    int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + skip, text.data() + text.size(), n, base);
    if (ec == std::errc() && ptr == text.data() + text.size()) {
      v.kind = Value::Kind::kInt;
      v.i = n;
    }
  } else if (t == "float") {
    std::erase(text, '_');
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str() + text.size()) {
      v.kind = Value::Kind::kFloat;
      v.f = d;
    }
  } else if (t == "true" || t == "false") {
    v.kind = Value::Kind::kBool;
    v.b = t == "true";
  } else if (t == "none") {
    v.kind = Value::Kind::kNone;
  } else if (t == "string") {
    for (const SyntaxNode& c : node.named_children()) {
      if (c.Is("interpolation")) return Value{.kind = Value::Kind::kUnknown, .node = node};
    }
    size_t prefix = 0;
    while (prefix < text.size() && text[prefix] != '\'' && text[prefix] != '"') ++prefix;
    std::string flags = text.substr(0, prefix);
    for (char& c : flags) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view body = std::string_view(text).substr(prefix);
    const size_t quote =
        body.size() >= 6 && (body.starts_with("\"\"\"") || body.starts_with("'''")) ? 3 : 1;
    if (body.size() < 2 * quote) return v;
    body = body.substr(quote, body.size() - 2 * quote);
    v.kind = Value::Kind::kString;
    v.s = flags.find('r') != std::string::npos ? std::string(body) : Unescape(body);
  }
  return v;
}

Value PythonReader::Binary(const SyntaxNode& node) {
  const Value a = Evaluate(node.field("left"));
  const Value b = Evaluate(node.field("right"));
  const std::string op(node.field("operator").text());
  Value v;
  v.node = node;
  if (a.Is(Value::Kind::kString) && b.Is(Value::Kind::kString) && op == "+") {
    v.kind = Value::Kind::kString;
    v.s = a.s + b.s;
    return v;
  }
  // 'data_batch_%d.bin' % i, '%s/%05d' % (root, i): where every value is known.
  if (a.Is(Value::Kind::kString) && op == "%") {
    const bool tuple = b.Is(Value::Kind::kList) && node.field("right").Is("tuple");
    const std::vector<Value> args =
        tuple ? std::vector<Value>(b.items.begin(), b.items.end()) : std::vector<Value>{b};
    if (const auto formatted = PercentFormat(a.s, args)) {
      v.kind = Value::Kind::kString;
      v.s = *formatted;
      return v;
    }
  }
  // A path built on one on a remote store (`data_dir + '/train'`, `'gs://b/t-%05d' % i`):
  // known only where the code runs, but known to be on that store.
  if ((op == "+" || op == "%") && (a.Is(Value::Kind::kString) || !a.remote_store.empty())) {
    v.remote_store = RemoteStoreOf(a);
    if (!v.remote_store.empty()) return v;
  }
  // Lists as Python builds them: `[[0.0]] * 5` (decode_csv's record_defaults), `a + b`.
  if (a.Is(Value::Kind::kList) && b.Is(Value::Kind::kList) && op == "+") {
    v.kind = Value::Kind::kList;
    v.items = a.items;
    v.items.insert(v.items.end(), b.items.begin(), b.items.end());
    return v;
  }
  if (op == "*" && (a.Is(Value::Kind::kList) || b.Is(Value::Kind::kList))) {
    const Value& list = a.Is(Value::Kind::kList) ? a : b;
    const auto times = (a.Is(Value::Kind::kList) ? b : a).AsInt();
    constexpr int64_t kMostItems = 1 << 16;  // a list longer is not one a knob reads
    if (!times || *times < 0 || *times * static_cast<int64_t>(list.items.size()) > kMostItems) {
      return v;
    }
    v.kind = Value::Kind::kList;
    for (int64_t k = 0; k < *times; ++k) {
      v.items.insert(v.items.end(), list.items.begin(), list.items.end());
    }
    return v;
  }
  // True division of two known numbers, a float: math.ceil(n / batch_size) sizes a Keras
  // Sequence (its __len__).
  const auto number = [](const Value& n) -> std::optional<double> {
    if (n.Is(Value::Kind::kInt)) return static_cast<double>(n.i);
    if (n.Is(Value::Kind::kFloat)) return n.f;
    return std::nullopt;
  };
  if (const auto p = number(a), q = number(b); op == "/" && p && q && *q != 0) {
    v.kind = Value::Kind::kFloat;
    v.f = *p / *q;
    return v;
  }
  // A float's sum, difference or product, not a knob itself but what int() makes one of
  // (keras#6108's image_ocr: `val_words = int(words_per_epoch * (val_split))`).
  if (a.Is(Value::Kind::kFloat) || b.Is(Value::Kind::kFloat)) {
    const auto p = number(a), q = number(b);
    if (!p || !q || (op != "+" && op != "-" && op != "*")) return v;
    v.kind = Value::Kind::kFloat;
    v.f = op == "+" ? *p + *q : op == "-" ? *p - *q : *p * *q;
    return v;
  }
  const auto x = a.AsInt(), y = b.AsInt();
  if (!x || !y) return v;
  v.kind = Value::Kind::kInt;
  if (op == "+") {
    v.i = *x + *y;
  } else if (op == "-") {
    v.i = *x - *y;
  } else if (op == "*") {
    v.i = *x * *y;
  } else if (op == "//" && *y != 0 && !(*y == -1 && *x == std::numeric_limits<int64_t>::min())) {
    // Python's floor division: -7 // 2 is -4, where C++ truncates to -3.
    v.i = *x / *y - ((*x % *y != 0 && (*x < 0) != (*y < 0)) ? 1 : 0);
  } else {
    v.kind = Value::Kind::kUnknown;
  }
  return v;
}

// `sampler is None`, `mode == "train"`: true or false where both sides are known literals
// (shuffle=(train_sampler is None) in pytorch/examples' imagenet).
Value PythonReader::Compare(const SyntaxNode& node) {
  const auto operands = node.code_children();
  if (operands.size() != 2) return Value{.node = node};
  const Value a = Evaluate(operands[0]);
  const Value b = Evaluate(operands[1]);
  const std::string_view text = node.text();
  std::string op(text.substr(operands[0].end_byte() - node.start_byte(),
                             operands[1].start_byte() - operands[0].end_byte()));
  std::erase_if(op, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  // Numbers in order (`prefetch_factor=4 if num_workers > 0 else None`).
  const bool numbers = !a.Is(Value::Kind::kString) && !b.Is(Value::Kind::kString) &&
                       a.AsNumber().has_value() && b.AsNumber().has_value();
  if (numbers && (op == "<" || op == ">" || op == "<=" || op == ">=")) {
    const double l = a.AsNumber().value_or(0), r = b.AsNumber().value_or(0);
    const bool holds = op == "<" ? l < r : op == ">" ? l > r : op == "<=" ? l <= r : l >= r;
    return Value{.kind = Value::Kind::kBool, .b = holds, .node = node};
  }
  std::optional<bool> same;
  const auto literal = [](const Value& v) {
    return v.Is(Value::Kind::kNone) || v.Is(Value::Kind::kBool) || v.Is(Value::Kind::kInt) ||
           v.Is(Value::Kind::kString);
  };
  // An object is not None, whatever else it is (a WorkerInfo in a worker process, a
  // pipeline, a function).
  const auto object = [](const Value& v) {
    return v.Is(Value::Kind::kInstance) || v.Is(Value::Kind::kPipeline) ||
           v.Is(Value::Kind::kFunction);
  };
  if ((op == "is" || op == "isnot") &&
      ((object(a) && b.Is(Value::Kind::kNone)) || (a.Is(Value::Kind::kNone) && object(b)))) {
    same = false;
  } else if (literal(a) && literal(b)) {
    if (a.Is(Value::Kind::kNone) || b.Is(Value::Kind::kNone)) {
      same = a.kind == b.kind;
    } else if (a.Is(Value::Kind::kString) || b.Is(Value::Kind::kString)) {
      same = a.kind == b.kind && a.s == b.s;
    } else {
      same = a.AsInt() == b.AsInt();
    }
  }
  if (!same || (op != "is" && op != "isnot" && op != "==" && op != "!=")) {
    return Value{.node = node};
  }
  const bool equal = op == "is" || op == "==";
  return Value{.kind = Value::Kind::kBool, .b = equal == *same, .node = node};
}

// An f-string whose every field is a value the code shows (f"shard_{i:03d}.tfrecord" in a
// comprehension over a range); else unknown, as the run's.
Value PythonReader::FString(const SyntaxNode& node) {
  Value unknown{.kind = Value::Kind::kUnknown, .node = node};
  std::string out;
  for (const SyntaxNode& part : node.named_children()) {
    if (part.Is("string_start") || part.Is("string_end")) continue;
    if (part.Is("string_content")) {
      out += Unescape(part.text());
      continue;
    }
    if (!part.Is("interpolation") || !part.field("type_conversion").null()) return unknown;
    const SyntaxNode spec = part.field("format_specifier");
    std::string spec_text = spec.null() ? "" : std::string(spec.text());
    if (!spec_text.empty() && spec_text[0] == ':') spec_text.erase(0, 1);
    const auto field = FormatField(Evaluate(part.field("expression")), spec_text);
    if (!field) return unknown;
    out += *field;
  }
  return Value{.kind = Value::Kind::kString, .s = out, .node = node};
}

// An f-string's value is the run's; the store it is a path on is what it begins with
// (f"gs://bucket/{name}", f"{data_dir}/train-{i:05d}").
std::string PythonReader::FStringStore(const SyntaxNode& fstring) {
  for (const SyntaxNode& part : fstring.named_children()) {
    if (part.Is("string_start")) continue;
    return part.Is("interpolation") ? RemoteStoreOf(Evaluate(part.field("expression")))
                                    : RemoteStoreOfPath(std::string(part.text()));
  }
  return {};
}

Value PythonReader::Evaluate(const SyntaxNode& e) {
  const Nesting nesting(nesting_);
  if (TooDeep(e)) return Value{.node = e};
  const std::string_view t = e.type();
  if (e.null()) return {};
  if (t == "integer" || t == "float" || t == "true" || t == "false" || t == "none" ||
      t == "string") {
    Value v = Literal(e);
    if (t == "string" && v.Is(Value::Kind::kUnknown)) {
      if (Value known = FString(e); known.Is(Value::Kind::kString)) return known;
      v.remote_store = FStringStore(e);
    }
    return v;
  }
  if (t == "concatenated_string") {
    Value v{.kind = Value::Kind::kString, .node = e};
    for (const SyntaxNode& part : e.code_children()) {
      const Value p = Literal(part);
      if (!p.Is(Value::Kind::kString)) return Value{.node = e};
      v.s += p.s;
    }
    return v;
  }
  if (t == "identifier") {
    if (const Value* bound = Lookup(std::string(e.text()))) {
      Value v = *bound;
      if (!v.Is(Value::Kind::kFunction) && !v.Is(Value::Kind::kClass)) {
        v.written_at = bound->WrittenAt();
        v.node = e;
      }
      return v;
    }
    return Value{.kind = Value::Kind::kSymbol, .s = std::string(e.text()), .node = e};
  }
  if (t == "attribute") {
    if (const Value* bound = Lookup(std::string(e.text()))) return *bound;
    const Value object = Evaluate(e.field("object"));
    // args.batch_size of argparse's parse_args(), FLAGS.batch_size of absl's flags: the
    // flag's default, marked as a flag's.
    const bool flags = (object.Is(Value::Kind::kInstance) && object.s == kParsedArguments) ||
                       (object.Is(Value::Kind::kSymbol) && object.SymbolTail() == "FLAGS");
    if (const Value* d = flags ? FlagDefault(std::string(e.field("attribute").text())) : nullptr;
        d && !d->Is(Value::Kind::kUnknown)) {
      Value v = *d;
      const SyntaxNode written = d->node;
      const bool literal = written.Is("integer") || written.Is("float") || written.Is("true") ||
                           written.Is("false") || written.Is("none") || written.Is("string");
      if (literal && written.file().empty()) {
        v.flag_default = written;
        v.flag = std::string(e.text());
      }
      v.node = e;
      v.run_time = "the flag `" + std::string(e.text()) + "`: its default";
      return v;
    }
    if (object.Is(Value::Kind::kSymbol)) {
      return Value{.kind = Value::Kind::kSymbol,
                   .s = object.s + "." + std::string(e.field("attribute").text()),
                   .node = e};
    }
    // cfg.workers on an instance of the file's class, Config.batch_size on the class: what
    // its constructor (given the instance's arguments) or its body binds.
    if (object.Is(Value::Kind::kInstance) || object.Is(Value::Kind::kClass)) {
      if (const ClassInfo* cls = FindClass(object.s)) {
        const auto attributes = object.Is(Value::Kind::kInstance) && object.call
                                    ? InstanceAttributes(*cls, *object.call)
                                    : cls->attributes;
        const std::string name(e.field("attribute").text());
        const auto it = attributes.find("self." + name);
        if (it != attributes.end() && !it->second.Is(Value::Kind::kUnknown)) return it->second;
        // A @property (TrainingArguments.train_batch_size): its method's return.
        const auto method = cls->methods.find(name);
        const SyntaxNode decorated =
            method == cls->methods.end() ? SyntaxNode{} : method->second.parent();
        if (object.Is(Value::Kind::kInstance) && decorated.Is("decorated_definition") &&
            decorated.text().substr(0, decorated.text().find("def ")).find("@property") !=
                std::string_view::npos) {
          if (auto r = CallMethodOf(object, name, CallArgs{.node = e})) return *std::move(r);
        }
      }
    }
    if (object.Is(Value::Kind::kDict) && object.s == kKeywordNamespace) {
      const std::string_view name = e.field("attribute").text();
      for (size_t k = 0; k + 1 < object.items.size(); k += 2) {
        if (object.items[k].s != name) continue;
        Value v = object.items[k + 1];
        v.node = e;  // written back in place of `args.batch_size`, where a knob takes it
        return v;
      }
    }
    return Value{.node = e};
  }
  if (t == "parenthesized_expression") {
    const auto inner = e.code_children();
    return inner.empty() ? Value{} : Evaluate(inner[0]);
  }
  if (t == "list" || t == "tuple" || t == "expression_list") {  // a, b: a tuple
    Value v{.kind = Value::Kind::kList, .node = e, .written_out = true};
    for (const SyntaxNode& item : e.code_children()) {
      v.written_out &= !item.Is("list_splat");  // [*others, x]: as long as the others are
      v.items.push_back(Evaluate(item));
    }
    return v;
  }
  if (t == "dictionary_comprehension") {
    // {str(k): tf.TensorSpec(...) for k in range(10)}: as many entries as one `for` without an
    // `if` iterates (a generator's output_signature of ten features), each known only when
    // the code runs.
    if (const auto n = ReadComprehension(e); n && *n >= 0 && *n <= kLongestListRead) {
      Value v{.kind = Value::Kind::kDict, .node = e, .comprehension = true};
      for (int64_t k = 0; k < *n; ++k) {
        v.items.push_back(Value{.node = e.field("body").field("key")});
        v.items.push_back(Value{.node = e.field("body").field("value")});
      }
      return v;
    }
    return Value{.node = e};
  }
  if (t == "generator_expression" || t == "set_comprehension") {
    ReadComprehension(e);
    return Value{.node = e};
  }
  if (t == "list_comprehension") {
    if (std::optional<Value> names = KnownStrings(e)) return *std::move(names);
    // [f(i) for i in range(1024)]: as many items as one `for` without an `if` iterates (a
    // file list of 1024 shards), each known only when the code runs.
    Value made;
    if (const auto n = ReadComprehension(e, &made); n && *n >= 0 && *n <= kLongestListRead) {
      // Each item known only when the code runs, but on the store the body's path is.
      Value item{.node = e.field("body"), .remote_store = RemoteStoreOf(made)};
      return Value{.kind = Value::Kind::kList,
                   .items = ValueList::Repeated(static_cast<size_t>(*n), std::move(item)),
                   .node = e,
                   .comprehension = true};
    }
    return Value{.node = e};
  }
  if (t == "dictionary") {
    Value v{.kind = Value::Kind::kDict, .node = e};
    for (const SyntaxNode& pair : e.code_children()) {
      if (!pair.Is("pair")) continue;
      v.items.push_back(Evaluate(pair.field("key")));
      v.items.push_back(Evaluate(pair.field("value")));
    }
    return v;
  }
  if (t == "unary_operator") {
    Value v = Evaluate(e.field("argument"));
    if (e.field("operator").text() == "-") {
      if (v.Is(Value::Kind::kInt)) {
        v.i = -v.i;
      } else if (v.Is(Value::Kind::kFloat)) {
        v.f = -v.f;
      } else {
        v = Value{};
      }
    }
    v.node = e;
    return v;
  }
  if (t == "binary_operator") return Binary(e);
  if (t == "comparison_operator") return Compare(e);
  if (t == "boolean_operator") {
    // `a and b`, `a or b` as Python takes them: the left where it decides, else the right.
    // A left known only at run time still decides nothing where the right is what settles
    // it (`self.cache and os.path.exists(p)` with cache=False is false whatever the path).
    const Value left = Evaluate(e.field("left"));
    const std::optional<bool> l = Truth(left);
    const bool is_and = e.field("operator").text() == "and";
    if (l) return *l == is_and ? Evaluate(e.field("right")) : left;
    const std::optional<bool> r = Truth(Evaluate(e.field("right")));
    if (r && *r != is_and) return Value{.kind = Value::Kind::kBool, .b = *r, .node = e};
    return Value{.node = e};
  }
  if (t == "not_operator") {
    const std::optional<bool> truth = Truth(Evaluate(e.field("argument")));
    if (!truth) return Value{.node = e};
    return Value{.kind = Value::Kind::kBool, .b = !*truth, .node = e};
  }
  if (t == "conditional_expression") {
    // `a if condition else b`: as `if` reads it, a condition known only at run time as true.
    const auto parts = e.code_children();
    if (parts.size() != 3) return Value{.node = e};
    const std::optional<bool> truth = Truth(Evaluate(parts[1]));
    if (!truth) {
      NoteGuessedCondition(parts[1], "the condition `" + Abridged(parts[1].text()) +
                                         "` is known only when the code runs: read as true, `" +
                                         Abridged(parts[2].text()) + "` left out");
    }
    return Evaluate(parts[truth.value_or(true) ? 0 : 2]);
  }
  if (t == "named_expression") {
    // `dataset := Tabular()` (Python 3.8): the value, bound to the name from here on.
    Value v = Evaluate(e.field("value"));
    Assign(e.field("name"), v);
    return v;
  }
  if (t == "lambda") return Value{.kind = Value::Kind::kFunction, .node = e};
  if (t == "call") return Call(e);
  if (t == "subscript") {
    // dataset["train"] of what tfds.load gives: the split is that pipeline.
    Value object = Evaluate(e.field("value"));
    if (object.Is(Value::Kind::kPipeline)) return object;
    // tensor[i]: a row of the array (tensor[a:b] and tensor[i, j] are not read).
    const auto keys = e.code_children();
    // self.x[low:high] of a batch (a Keras Sequence's __getitem__): as many items as the
    // bounds differ by, where that is a number whatever the values only the run knows.
    if (keys.size() == 2 && keys[1].Is("slice")) {
      const auto bounds = keys[1].code_children();
      const std::string_view text = keys[1].text();
      if (bounds.size() == 2 && std::count(text.begin(), text.end(), ':') == 1) {
        // A list's own items where both bounds are numbers (items[2:5], items[-3:-1]); the
        // bounds are evaluated once, here, and SliceLength reads only their names.
        std::optional<int64_t> a, b;
        if (object.Is(Value::Kind::kList)) {
          a = Evaluate(bounds[0]).AsInt();
          b = Evaluate(bounds[1]).AsInt();
        }
        if (a && b) {
          const auto n = static_cast<int64_t>(object.items.size());
          const auto clamp = [n](int64_t k) {
            return std::clamp(k < 0 ? k + n : k, int64_t{0}, n);
          };
          Value part{.kind = Value::Kind::kList, .node = e, .comprehension = object.comprehension};
          for (int64_t j = clamp(*a); j < clamp(*b); ++j) part.items.push_back(object.items[j]);
          return part;
        }
        if (const auto n = SliceLength(bounds[0], bounds[1]); n && *n <= kLongestListRead) {
          if (object.Is(Value::Kind::kTensor) && !object.items.empty()) {
            Value rows = object;
            rows.items[0] = Value{.kind = Value::Kind::kInt, .i = *n};
            rows.node = e;
            return rows;
          }
          const Value item = object.Is(Value::Kind::kList) && !object.items.empty()
                                 ? object.items[0]
                                 : Value{.node = e};
          return Value{.kind = Value::Kind::kList,
                       .items = ValueList::Repeated(static_cast<size_t>(*n), item),
                       .node = e,
                       .comprehension = true};
        }
      }
    }
    // items[0], items[-1], items[1:] of a list the file builds.
    if (object.Is(Value::Kind::kList) && keys.size() == 2) {
      const auto n = static_cast<int64_t>(object.items.size());
      if (keys[1].Is("slice")) {
        const auto bounds = keys[1].code_children();
        const std::string_view text = keys[1].text();
        if (bounds.size() == 1 && text.back() == ':') {  // items[k:]
          if (const auto k = Evaluate(bounds[0]).AsInt(); k && *k >= 0) {
            Value rest{.kind = Value::Kind::kList, .node = e};
            for (int64_t j = *k; j < n; ++j) rest.items.push_back(object.items[j]);
            return rest;
          }
        }
        if (bounds.size() == 1 && text.front() == ':') {  // items[:k]
          if (const auto k = Evaluate(bounds[0]).AsInt(); k && *k >= 0) {
            Value first{
                .kind = Value::Kind::kList, .node = e, .comprehension = object.comprehension};
            for (int64_t j = 0; j < std::min(*k, n); ++j) first.items.push_back(object.items[j]);
            return first;
          }
        }
      } else if (const auto k = Evaluate(keys[1]).AsInt(); k && *k >= -n && *k < n) {
        Value item = object.items[*k < 0 ? *k + n : *k];
        return item;
      }
      return Value{.node = e};
    }
    if (object.Is(Value::Kind::kTensor) && keys.size() == 2 && !keys[1].Is("slice")) {
      return TensorRow(object, e);
    }
    // config["batch_size"] of a dict the file writes: its value for that key.
    if (object.Is(Value::Kind::kDict) && keys.size() == 2) {
      const Value key = Evaluate(keys[1]);
      if (const Value* held = key.Is(Value::Kind::kString) ? ItemOf(object, key.s) : nullptr) {
        return *held;
      }
    }
    return Value{.node = e};
  }
  return Value{.node = e};
}

// A slice's bound as a sum of terms: the numbers the code shows folded into `constant`,
// anything else a term by its text with its coefficient (`idx * self.batch_size` with the
// batch size known to be 32 is {idx: 32}). A name bound to a value known only where the code
// runs is read through the expression that made it (`low = idx * self.batch_size`); min()
// by its first argument, the bound a batch reaches but for the last (`high = min(low +
// self.batch_size, len(self.x))`, the Keras documentation's Sequence).
struct PythonReader::LinearBound {
  std::map<std::string, int64_t> terms;
  int64_t constant = 0;
  void Add(const LinearBound& other, int64_t sign) {
    constant += sign * other.constant;
    for (const auto& [term, k] : other.terms) {
      if ((terms[term] += sign * k) == 0) terms.erase(term);
    }
  }
};

PythonReader::LinearBound PythonReader::LinearOf(const SyntaxNode& n, int depth) {
  LinearBound out;
  const auto atom = [&] {
    out.terms[std::string(n.text())] = 1;
    return out;
  };
  if (depth > 8) return atom();
  if (n.Is("parenthesized_expression")) {
    const auto inner = n.code_children();
    return inner.size() == 1 ? LinearOf(inner[0], depth + 1) : atom();
  }
  if (n.Is("binary_operator")) {
    const std::string_view op = n.field("operator").text();
    LinearBound a = LinearOf(n.field("left"), depth + 1);
    const LinearBound b = LinearOf(n.field("right"), depth + 1);
    if (op == "+" || op == "-") {
      a.Add(b, op == "+" ? 1 : -1);
      return a;
    }
    if (op == "*" && (a.terms.empty() || b.terms.empty())) {
      const int64_t k = a.terms.empty() ? a.constant : b.constant;
      LinearBound scaled = a.terms.empty() ? b : a;
      scaled.constant *= k;
      for (auto it = scaled.terms.begin(); it != scaled.terms.end();) {
        it->second *= k;
        it = it->second == 0 ? scaled.terms.erase(it) : std::next(it);
      }
      return scaled;
    }
    return atom();
  }
  if (n.Is("call") && n.field("function").text() == "min") {
    const auto args = n.field("arguments").code_children();
    return args.empty() || args[0].Is("keyword_argument") ? atom() : LinearOf(args[0], depth + 1);
  }
  // Only numbers and names are evaluated: anything else (a call, a subscript) is a term by
  // its text, so reading a bound never reads the code it is made of again (a slice in a
  // bound would read its own bounds, and so on).
  const auto plain = [](SyntaxNode x) {
    while (x.Is("attribute")) x = x.field("object");
    return x.Is("identifier");
  };
  if (!n.Is("integer") && !plain(n)) return atom();
  if (const auto known = Evaluate(n).AsInt()) {
    out.constant = *known;
    return out;
  }
  if (n.Is("identifier")) {
    if (const Value* bound = Lookup(std::string(n.text())); bound && !bound->node.null() &&
                                                            bound->node.key() != n.key() &&
                                                            !bound->node.Is("identifier")) {
      return LinearOf(bound->node, depth + 1);
    }
  }
  return atom();
}

std::optional<int64_t> PythonReader::SliceLength(const SyntaxNode& start, const SyntaxNode& stop) {
  LinearBound length = LinearOf(stop, 0);
  length.Add(LinearOf(start, 0), -1);
  if (!length.terms.empty() || length.constant < 0) return std::nullopt;
  return length.constant;
}

CallArgs PythonReader::Arguments(const SyntaxNode& list) {
  CallArgs args;
  args.node = list;
  for (const SyntaxNode& a : list.code_children()) {
    if (a.Is("keyword_argument")) {
      args.keyword[std::string(a.field("name").text())] = Evaluate(a.field("value"));
    } else if (a.Is("dictionary_splat") || a.Is("list_splat")) {
      // **loader_kwargs of a dict the file builds: its keys are keywords; anything else
      // leaves its arguments unknown, as their defaults.
      const auto inner = a.code_children();
      const Value spread = inner.empty() ? Value{} : Evaluate(inner[0]);
      bool known = a.Is("dictionary_splat") && spread.Is(Value::Kind::kDict);
      for (size_t k = 0; known && k + 1 < spread.items.size(); k += 2) {
        known = spread.items[k].Is(Value::Kind::kString);
      }
      if (known) {
        for (size_t k = 0; k + 1 < spread.items.size(); k += 2) {
          args.keyword[spread.items[k].s] = spread.items[k + 1];
          args.from_splat.push_back(spread.items[k].s);
        }
      } else if (a.Is("list_splat") && spread.Is(Value::Kind::kList)) {
        // *self.shape of a tuple the file shows: its items, in place (np.random.rand(*shape)).
        args.positional.insert(args.positional.end(), spread.items.begin(), spread.items.end());
      } else if (args.unknown_splat.empty()) {
        args.unknown_splat = std::string(a.text());
      }
    } else {
      args.positional.push_back(Evaluate(a));
    }
  }
  return args;
}

const Dialect::Function* PythonReader::FindFunction(const std::string& path) const {
  // The longest key the path ends with: torch_geometric.loader.DataLoader before DataLoader.
  const std::string canonical = CanonicalPath(path);
  const Dialect::Function* found = nullptr;
  size_t found_length = 0;
  for (const Dialect* d : dialects_) {
    for (const auto& [key, fn] : d->functions) {
      if (key.size() > found_length && EndsWithPath(canonical, key)) {
        found = &fn;
        found_length = key.size();
      }
    }
  }
  return found;
}

std::vector<RecordedCall> PythonReader::CallsIn(const Value& function) {
  if (!function.Is(Value::Kind::kFunction)) return {};
  const size_t key = function.node.key();
  if (const auto it = calls_in_.find(key); it != calls_in_.end()) return it->second;
  if (!function.node.Is("lambda")) return {};
  std::vector<RecordedCall> recorded;
  recorders_.push_back(&recorded);
  Apply(function, {});
  recorders_.pop_back();
  calls_in_[key] = recorded;
  return recorded;
}

void PythonReader::Record(std::string path, const Value& callee, const CallArgs& args) {
  if (recorders_.empty()) return;
  RecordedCall recorded{std::move(path), callee, args};
  for (const std::optional<int64_t>& turns : turns_) {
    if (!turns) {
      recorded.times_unknown = true;
    } else {
      recorded.times = TimesOver(recorded.times, *turns);
    }
  }
  recorders_.back()->push_back(std::move(recorded));
}

Value PythonReader::Call(const SyntaxNode& call) {
  const SyntaxNode callee = call.field("function");
  const SyntaxNode arg_list = call.field("arguments");
  CallArgs args = arg_list.Is("argument_list") ? Arguments(arg_list) : CallArgs{};
  args.node = call;

  // A method of a pipeline: ds.map(...), loader's or dataset's own.
  if (callee.Is("attribute")) {
    const Value object = Evaluate(callee.field("object"));
    const std::string method(callee.field("attribute").text());
    if (object.Is(Value::Kind::kPipeline) && object.pipeline) {
      for (const Dialect* d : dialects_) {
        if (d->framework != object.pipeline->framework) continue;
        if (const auto it = d->methods.find(method); it != d->methods.end()) {
          return it->second(*this, *object.pipeline, args);
        }
      }
      // A method no dialect reads: the pipeline goes on as it was, and says so.
      auto p = Extend(*object.pipeline, call.start());
      p->LeaveOut(call.start(), "." + method + "(...)",
                  "." + method +
                      "(...) is not read: left out of the spec, and of what advice "
                      "simulates");
      return Value{.kind = Value::Kind::kPipeline, .pipeline = std::move(p), .node = call};
    }
    if (object.Is(Value::Kind::kTensor)) return TensorMethod(object, method, args);
    // 'gs://bucket/train-{:05d}'.format(i), '{}/train'.format(data_dir): a path on the store
    // the string, or the first part it is given, names.
    if (object.Is(Value::Kind::kString) && method == "format") {
      if (args.keyword.empty()) {
        if (const auto known = BraceFormat(object.s, args.positional)) {
          return Value{.kind = Value::Kind::kString, .s = *known, .node = call};
        }
      }
      Value formatted{.node = call};
      formatted.remote_store = RemoteStoreOfPath(object.s);
      if (formatted.remote_store.empty() && object.s.starts_with("{") && !args.positional.empty()) {
        formatted.remote_store = RemoteStoreOf(args.positional[0]);
      }
      return formatted;
    }
    // A method of an object a dialect made (datagen.flow(...) on an ImageDataGenerator).
    if (object.Is(Value::Kind::kTransform)) {
      if (const auto* fn = FindFunction(object.s + "." + method)) {
        args.receiver = std::make_shared<const Value>(object);
        // Its work is the reading function's (datagen.random_transform(x) in __getitem__).
        Record(object.s + "." + method, object, args);
        return (*fn)(*this, args);
      }
    }
    // datasets.append(ds): the list the name holds gains the item (the TensorFlow guide's
    // per-file datasets gathered in a loop, then concatenated).
    if (object.Is(Value::Kind::kList) && method == "append" &&
        callee.field("object").Is("identifier") && args.positional.size() == 1) {
      Value longer = object;
      longer.written_out = false;
      // In a loop of known count the body is read once for all its turns (64 crops of an
      // image): an empty list made before the loop holds an item a turn, counted as a
      // comprehension's are.
      const Value* bound = Lookup(std::string(callee.field("object").text()));
      const int64_t turns = bound ? TurnsOfAnAppend(call, bound->node) : 1;
      if (turns > 1 && object.items.empty()) {
        longer.items = ValueList::Repeated(static_cast<size_t>(turns), args.positional[0]);
        longer.comprehension = true;
      } else {
        longer.items.push_back(args.positional[0]);
      }
      Bind(std::string(callee.field("object").text()), longer);
      return Value{.kind = Value::Kind::kNone, .node = call};
    }
    // self.files.extend(more), and an append to an attribute's list: not as written any more.
    if (const SyntaxNode held = callee.field("object");
        object.Is(Value::Kind::kList) && object.written_out &&
        (held.Is("identifier") || held.Is("attribute")) &&
        (method == "append" || method == "extend" || method == "insert" || method == "pop" ||
         method == "remove" || method == "clear")) {
      Value changed = object;
      changed.written_out = false;
      Bind(std::string(held.text()), changed);
      return Value{.node = call};
    }
    // config.get("workers", 4): the dict's value for the key, else the default (None without).
    if (object.Is(Value::Kind::kDict) && method == "get" && !args.positional.empty() &&
        args.positional[0].Is(Value::Kind::kString) && object.s != kKeywordNamespace) {
      if (const Value* held = ItemOf(object, args.positional[0].s)) return *held;
      if (args.positional.size() > 1) return args.positional[1];
      return Value{.kind = Value::Kind::kNone, .node = call};
    }
    // kwargs.update(cuda_kwargs): the dict the name holds gains the other's keys.
    if (object.Is(Value::Kind::kDict) && method == "update" &&
        callee.field("object").Is("identifier")) {
      Value merged = object;
      const Value* other = args.positional.empty() ? nullptr : &args.positional[0];
      if (other && !other->Is(Value::Kind::kDict)) {
        merged = Value{.node = call};  // updated with what is not known: not known
      } else {
        for (size_t k = 0; other && k + 1 < other->items.size(); k += 2) {
          PutItem(merged, other->items[k], other->items[k + 1]);
        }
        for (const auto& [name, value] : args.keyword) {
          PutItem(merged, Value{.kind = Value::Kind::kString, .s = name}, value);
        }
      }
      Bind(std::string(callee.field("object").text()), merged);
      return Value{.kind = Value::Kind::kNone, .node = call};
    }
    // self.transform(img): an attribute bound in __init__, called below as what it holds.
    const bool bound_attribute = Lookup(std::string(callee.text())) != nullptr;
    if (object.Is(Value::Kind::kInstance) && !bound_attribute) {
      if (auto r = CallMethodOf(object, method, args)) return *std::move(r);
    }
    if (!object.Is(Value::Kind::kSymbol) && !bound_attribute) {
      // A base class's constructor run by a subclass's (`super().__init__(workers=4)`): what a
      // reader of __init__'s calls asks for (a Keras 3 PyDataset's workers).
      if (method == "__init__" && !recorders_.empty()) {
        recorders_.back()->push_back({std::string(), Value{.node = call}, args});
      }
      // model.fit(...) on a model the file builds: a method of something unknown.
      if (const auto* fn = FindFunction("?." + method)) return (*fn)(*this, args);
      return Value{.node = call};
    }
  }

  const Value f = Evaluate(callee);
  // A pipeline handed to a call (benchmark(ds), a training function) is one the file uses.
  for (const Value& a : args.positional) Use(a, "", call);
  for (const auto& [name, a] : args.keyword) Use(a, "", call);
  Record(f.Is(Value::Kind::kSymbol) ? CanonicalPath(f.s) : std::string(), f, args);
  if (f.Is(Value::Kind::kSymbol)) {
    // max(1, self.n_gpu), min(8, cores) of numbers the code gives: that number.
    if ((f.s == "max" || f.s == "min") && args.positional.size() >= 2 && args.keyword.empty()) {
      std::optional<int64_t> best;
      for (const Value& a : args.positional) {
        const auto n = a.Is(Value::Kind::kInt) ? a.AsInt() : std::nullopt;
        if (!n) {
          best.reset();
          break;
        }
        best = !best ? *n : f.s == "max" ? std::max(*best, *n) : std::min(*best, *n);
      }
      if (best) return Value{.kind = Value::Kind::kInt, .i = *best, .node = call};
    }
    if (f.s == "dict" && args.positional.empty() && args.unknown_splat.empty()) {
      Value d{.kind = Value::Kind::kDict, .node = call};  // dict(num_workers=4, ...)
      for (const auto& [name, value] : args.keyword) {
        d.items.push_back(Value{.kind = Value::Kind::kString, .s = name});
        d.items.push_back(value);
      }
      return d;
    }
    if (const auto* fn = FindFunction(f.s)) return (*fn)(*this, args);
    if (PassesArgumentOn(CanonicalPath(f.s)) && !args.positional.empty()) {
      return args.positional[0];
    }
    // Known by its call under a name it is bound to (trainer = pl.Trainer(max_epochs=100),
    // then trainer.fit(model)).
    Value made{.node = call};
    made.call = std::make_shared<const CallArgs>(args);
    return made;
  }
  if (f.Is(Value::Kind::kClass)) {
    // A class whose __new__ returns a dataset (tf.data's guide's ArtificialDataset).
    if (Value made = Apply(f, args.positional, args.keyword); made.Is(Value::Kind::kPipeline)) {
      return made;
    }
    Value instance{.kind = Value::Kind::kInstance, .s = f.s, .node = call};
    instance.call = std::make_shared<const CallArgs>(args);
    return instance;
  }
  if (f.Is(Value::Kind::kFunction)) {
    // The calls its body makes where it is read again with the arguments go with this call
    // (RecordedCall::inner), not beside it: a reader of the caller's calls would otherwise
    // count pil_loader's Image.open twice, once here and once in pil_loader's own calls.
    std::vector<RecordedCall> inner;
    const size_t at = recorders_.empty() ? 0 : recorders_.back()->size();
    if (at > 0) recorders_.push_back(&inner);
    // self.method(x): the method's first parameter is the instance, x its second (a helper
    // given the batch's ids, keras#12120's self.__data_generation(list_IDs_temp), is read
    // with them). In a method called on an instance (CallMethodOf) `self` is that instance,
    // so a helper it calls (self.get_loaders()) is read with the constructor's arguments too.
    std::vector<Value> positional = args.positional;
    if (callee.Is("attribute") && callee.field("object").text() == "self") {
      const auto params = f.node.field("parameters").code_children();
      if (!params.empty() && ParameterName(params[0]) == "self") {
        const Value* self = Lookup("self");
        positional.insert(positional.begin(), self ? *self : Value{});
      }
    }
    Value r = Apply(f, positional, args.keyword);
    if (at > 0) {
      recorders_.pop_back();
      (*recorders_.back())[at - 1].inner = std::move(inner);
    }
    if (r.Is(Value::Kind::kUnknown)) {
      r.node = call;
      // The call stays known under a name it is bound to (train = batch_generator(x), then
      // fit(train)): what it called says what it is (a generator).
      r.call = std::make_shared<const CallArgs>(args);
    }
    return r;
  }
  return Value{.node = call};
}

}  // namespace pipescope::code

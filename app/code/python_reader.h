#pragma once
// Reads a Python file the way import-code needs: statements in order (into function and
// class bodies, every branch of an if), names bound to what their expressions are as far as
// can be known without running the code, and every call a framework's dialect knows handed
// to it. The pipelines the file builds are collected; which one it ends with is the answer.

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/code/code_values.h"
#include "app/code/python_tree.h"

namespace pipescope::code {

class PythonReader;

// A framework's calls: functions and classes by the end of their dotted path ("TFRecordDataset"
// matches tf.data.TFRecordDataset and a name imported from it; "Dataset.range" only a
// Dataset's), and methods of the pipelines it builds by name.
struct Dialect {
  using Function = std::function<Value(PythonReader&, const CallArgs&)>;
  using Method = std::function<Value(PythonReader&, const Pipeline&, const CallArgs&)>;
  std::string framework;
  std::map<std::string, Function> functions;
  std::map<std::string, Method> methods;
};

// A class the file defines: its bases as written and its methods.
struct ClassInfo {
  std::string name;
  std::vector<std::string> bases;
  std::map<std::string, SyntaxNode> methods;  // function_definition nodes
  std::map<std::string, Value> returns;       // a method's returned value, where one is known
  // What __init__ binds to self ("self.x": torch.randn(n, 16)), seen by the methods read
  // after it (its parameters at their defaults).
  std::map<std::string, Value> attributes;
  // A dataclass's or a NamedTuple's fields (`batch_size: int = 8` in its body), in order: the
  // __init__ Python writes for it takes them by position or by name.
  std::vector<std::string> fields;
};

// A call as the reader met it: inside a def's body when the def was read, or in a lambda's
// body when it was applied.
struct RecordedCall {
  std::string path;  // the callee's canonical dotted path; empty when not a name
  Value callee;
  CallArgs args;
  // How often it runs a call of the function it is in: the product of the loops and
  // comprehensions around it whose counts are known (`[pil_loader(p) for p in paths]` over
  // three paths: 3), and whether one's count is known only when the code runs.
  int64_t times = 1;
  bool times_unknown = false;
  // A function of the file's called with arguments its body was read again with (or a
  // lambda applied): the calls that reading made, their sizes known from the arguments, in
  // place of its own calls as read where it is defined; empty where none was.
  std::vector<RecordedCall> inner;
};

// `times` a call, each `turns` times: bounded, so that loops within loops stay a count.
inline int64_t TimesOver(int64_t times, int64_t turns) {
  constexpr int64_t kMostTimes = 1 << 20;
  return std::min(kMostTimes, times * std::clamp<int64_t>(turns, 0, kMostTimes));
}

// A pipeline the file binds, returns or hands to a call, in source order.
struct PipelineUse {
  std::shared_ptr<const Pipeline> pipeline;
  std::string variable;  // the name it is bound to; empty for a return or a bare call
  SourcePoint at;
  bool trains = false;  // handed to a training loop (Keras's fit)
  // Iterated by a loop that does something with its elements but does not train (`x =
  // x.cuda()`, `model(x)`: a benchmark's or an evaluation's loop): where nothing trains, the
  // pipeline the file takes, rather than the last one it builds.
  bool consumed = false;
  // Iterated by a loop that does nothing with its elements (`for _ in loader: pass`): the
  // step takes no time, and the loader alone is what is timed.
  bool step_free = false;
  // Iterated by a loop of the file's top level, in no loop, def or class (`for batch in
  // tqdm(loader): continue`, transformers#14428): one pass over the data, one epoch.
  bool single_pass = false;
  // A PyTorch loop that trains in a file that names no accelerator anywhere (no cuda, no
  // device, no .to(...) of one), or any training in a file that hides the GPU
  // (CUDA_VISIBLE_DEVICES="-1"): it trains on the CPU, for the reason said.
  bool trains_on_cpu = false;
  std::string cpu_because;
  // Iterated element by element by a Python loop outside any tf.function (`for x, y in
  // dataset:`, TensorFlow 2's eager iteration): the components the loop takes each element
  // as (2 for `x, y`; 1 where it takes the element whole), each made a tensor for Python at
  // every next(). 0: not so (a DataLoader, Keras's fit, a loop a tf.function compiles).
  int64_t eager_components = 0;
  // Iterated by a loop that only sleeps (`time.sleep(0.05)` standing for the training step,
  // as people time a loader): the seconds it sleeps, in ns; 0 otherwise.
  int64_t step_sleep_ns = 0;
  // A Keras Sequence whose batches the loop takes by hand (`gen.next()`, keras#9332), with
  // no enqueuer: what stops its workers' knobs being written into the code, for people.
  std::string taken_by_hand;
};

class PythonReader {
 public:
  PythonReader(const PythonTree& tree, std::vector<const Dialect*> dialects);

  // The folder of the file read: where `import utils` and `from data.augment import flip`
  // find the modules beside it (utils.py, data/augment.py, a package's __init__.py), whose
  // definitions are then read too. Without it only the file is read.
  void ReadModulesFrom(std::filesystem::path folder) { folder_ = std::move(folder); }
  const std::filesystem::path& folder() const { return folder_; }

  void Read();

  const std::vector<PipelineUse>& uses() const { return uses_; }
  // The components of each dataset the file saves (`ds.save(path)`), by the path as the code
  // spells it: what `Dataset.load(path)` reads back.
  void NoteSaved(const std::string& path, int64_t components) { saved_[path] = components; }
  int64_t SavedComponents(const std::string& path) const {
    const auto it = saved_.find(path);
    return it == saved_.end() ? 0 : it->second;
  }
  // The start method the file sets for the whole program's worker processes
  // (multiprocessing.set_start_method, torch.multiprocessing's): its name and where it is
  // set; an empty name where the file sets none. Kept from the first reading, so that a
  // loader made in a def above the call (`main()`, called after it) sees it, as it does
  // when the program runs.
  struct StartMethodSet {
    std::string method;
    SourcePoint at;
  };
  void NoteStartMethod(StartMethodSet set) { start_method_ = std::move(set); }
  const StartMethodSet& start_method() const { return start_method_; }
  // Notes that belong to no pipeline: syntax the parser could not read, statements skipped.
  const std::vector<CodeNote>& notes() const { return notes_; }
  // `# pipescope: OP.KNOB=VALUE ...` comments: settings the file carries for its own import
  // (emitted code keeps a stage's cost this way).
  const std::vector<std::pair<SourcePoint, std::string>>& pragmas() const { return pragmas_; }
  // The epochs a loop over pipeline `id` runs, where it runs inside `for epoch in range(N):`
  // (N, and where that loop is); nullopt elsewhere.
  struct LoopEpochs {
    int64_t epochs = 0;
    SourcePoint at;
    // The pipeline is made anew in the loop's body (`loader = DataLoader(...)` under `for
    // epoch in range(N):`, or a method the body calls), not once before it.
    bool made_each_turn = false;
    // What counts them where no loop of the file's does (Lightning's `Trainer(max_epochs=N)`),
    // as its note says it; empty for a loop.
    std::string counted_by;
  };
  // Epochs a framework's own loop runs over pipeline `id` (Lightning's Trainer).
  void SetEpochs(int id, LoopEpochs epochs) { loop_epochs_[id] = std::move(epochs); }
  // A pipeline gone through once a turn of the `for epoch in range(N):` around the reading
  // (a loop over it, `list(loader)`, `estimator.train(input_fn=...)` over a dataset that
  // ends): the loop's epochs; `made_each_turn` where each turn makes it anew. Nothing outside
  // such a loop.
  void EpochsOfTheLoopAround(const Value& pipeline, bool made_each_turn) {
    if (pipeline.pipeline && !range_loops_.empty() && range_loops_.back() > 0) {
      loop_epochs_[pipeline.pipeline->id] = {range_loops_.back(), range_starts_.back(),
                                             made_each_turn};
    }
  }
  std::optional<LoopEpochs> EpochsOf(int id) const {
    const auto it = loop_epochs_.find(id);
    return it == loop_epochs_.end() ? std::nullopt : std::optional<LoopEpochs>(it->second);
  }
  // Whether pipeline `ancestor` is `id` or one `id` was built from (through its parents and
  // the pipelines it took in beside them: a zip's second).
  bool DerivesFrom(int id, int ancestor) const;
  // Pipeline `id` takes in pipeline `other` beside its parent (Dataset.zip's second).
  void TakesIn(int id, int other) { taken_in_[id].push_back(other); }
  // The same pipeline, or the other reading's copy of it (Pipeline::reading): built at the
  // same place. A training loop in a def defined above its loader (`for x in loader:` with
  // `loader` made later in main) holds the first reading's, main binds the second's.
  static bool SameBuild(const Pipeline& a, const Pipeline& b);

  // IsPlainPython walks under way (work_functions.cc: one at a time).
  int plain_walks_under_way = 0;

  // For the dialects.
  Value Evaluate(const SyntaxNode& expression);
  // The value last assigned to `name`, a variable or a dotted attribute of one
  // (`options.experimental_optimization.map_fusion = True`); nullptr where none was.
  const Value* Assigned(const std::string& name) const { return Lookup(name); }
  // Binds `target` (a name, an attribute) to `value` again: a method that changes the object
  // it is called on (an OrderedEnqueuer's start()).
  void Rebind(const SyntaxNode& target, const Value& value) { Assign(target, value); }
  std::shared_ptr<Pipeline> NewPipeline(const std::string& framework, SourcePoint at);
  std::shared_ptr<Pipeline> Extend(const Pipeline& from, SourcePoint at);
  const ClassInfo* FindClass(const std::string& name) const;
  // The value a function returns when the file shows it (a def's last `return` that gave a
  // known value); Unknown otherwise.
  Value ReturnOf(const Value& function) const;
  // Calls a Python function or lambda on nothing known: the value of its body (a lambda's
  // expression, a def's return), with its parameters bound to `arguments` in order, then to
  // `keywords` by name, the rest to their defaults. A class is called as its __new__.
  Value Apply(const Value& function, const std::vector<Value>& arguments,
              const std::map<std::string, Value>& keywords = {});
  // The iterations of a `for` over `iterated`, where the file shows them: range(stop),
  // range(start, stop[, step]) of ints it knows, a list, or an array's rows.
  std::optional<int64_t> IterationsOver(const SyntaxNode& iterated);
  // The elements a generator's `block` yields, where its code says: a yield statement counts
  // one, `yield from` and a `for` over something of known length count its length (times the
  // for's body's). A yield under an if, a while or a try is known only when it runs: nullopt.
  std::optional<int64_t> YieldsOf(const SyntaxNode& block, int depth = 0);
  // The turns of `while counter < limit:` (or <=) whose body steps the counter by a constant
  // once and never leaves early, the counter starting where `starts` says; nullopt otherwise.
  std::optional<int64_t> CounterTurns(const SyntaxNode& loop,
                                      const std::map<std::string, int64_t>& starts);
  // YieldsOf a method's body on an instance: its `self.x` as `attributes` say (an
  // IterableDataset's __iter__ over `range(self.start, self.end)`), its parameters unknown.
  std::optional<int64_t> YieldsOfMethod(const SyntaxNode& def,
                                        const std::map<std::string, Value>& attributes);
  // What a generator def does each time it runs, with its parameters bound to `arguments`
  // (from_generator's args=) and the rest to their defaults: the elements it yields
  // (YieldsOf), the time.sleep before its first yield and in each turn of the loop that
  // yields one element, and whether that is all it does: every other statement, and the
  // loop's other statements one by one, `plain` (work_functions.h's IsPlainPython), so that
  // its Python's own cost is next to nothing.
  struct GeneratorBody {
    std::optional<int64_t> yields;
    int64_t first_sleep_ns = 0;
    int64_t sleep_per_yield_ns = 0;
    bool only_sleeps = false;
  };
  GeneratorBody ReadGenerator(const SyntaxNode& def, const std::vector<Value>& arguments,
                              const std::function<bool(const SyntaxNode&)>& plain);
  void Note(SourcePoint at, std::string message) { notes_.push_back({at, std::move(message)}); }
  // A note that `condition` was read as true, not knowing its value. Made while a def is read
  // where it is defined (its parameters unknown), it is taken back at the end where every
  // call of the def the file makes gives arguments and none of them leaves it unknown
  // (get_filenames(is_training) called as get_filenames(False, ...)).
  void NoteGuessedCondition(const SyntaxNode& condition, std::string message);
  // A pipeline a training loop consumes (fit(ds)): the one import-code reads, before any
  // other the file builds (an evaluation set, say).
  void Trains(const Value& pipeline, const SyntaxNode& at);
  // The calls a function makes: a def's as read, a lambda's by applying it to unknowns.
  std::vector<RecordedCall> CallsIn(const Value& function);
  // What an instance's `self.x` are when the class's __init__ runs on the arguments it was
  // made with (`MyDataset(paths, transform=train_tf)`): __init__ read again with them bound,
  // beside the class's own attributes (read with the parameters at their defaults).
  // `init_calls`, when given, gets the calls __init__ makes so read (its
  // `super().__init__(workers=4, **kwargs)`).
  std::map<std::string, Value> InstanceAttributes(const ClassInfo& cls, const CallArgs& made_with,
                                                  std::vector<RecordedCall>* init_calls = nullptr);
  // The calls a method makes on an instance whose `self.x` are `attributes`: its body read
  // again with them (an `if self.transform:` taken as the instance has it); `returned`, when
  // given, gets what it returns where that is known (__len__'s `len(self.x)`).
  std::vector<RecordedCall> CallsIn(const SyntaxNode& method,
                                    const std::map<std::string, Value>& attributes,
                                    Value* returned = nullptr);
  // What `self.x` is in a class's methods: the attributes given, and the class's methods
  // (`ds.map(self.compute)`, a helper generator __iter__ returns), so that their work is read.
  static std::map<std::string, Value> SelfOf(const ClassInfo& cls,
                                             std::map<std::string, Value> attributes);
  // instance.method(...) on an instance of a class the file defines: the method's body read
  // with the attributes its constructor's arguments bind, its return the call's value;
  // nullopt where the class or the method is not the file's.
  std::optional<Value> CallMethodOf(const Value& instance, const std::string& method,
                                    const CallArgs& args);
  // Command-line flags the file defines (argparse's add_argument, absl's DEFINE_integer), by
  // name, with their defaults: what `args.name` and `FLAGS.name` stand for.
  void DefineFlag(const std::string& name, const Value& default_value) {
    flags_[name] = default_value;
  }
  const Value* FlagDefault(const std::string& name) const {
    const auto it = flags_.find(name);
    return it == flags_.end() ? nullptr : &it->second;
  }
  // The dialect function that `path` names; nullptr when none does.
  const Dialect::Function* FindFunction(const std::string& path) const;

 private:
  void ReadPragmas(const SyntaxNode& node, int depth = 0);
  // Statements and expressions nested beyond kMaxNesting are left out (once noted), so a
  // pathological file cannot exhaust the stack.
  static constexpr int kMaxNesting = 200;
  struct Nesting {
    explicit Nesting(int& depth) : depth_(++depth) {}
    ~Nesting() { --depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    int& depth_;
  };
  bool TooDeep(const SyntaxNode& node);
  // A loop body that does nothing but sleep for seconds the code gives (beside prints,
  // `pass` and comments): the nanoseconds it sleeps; 0 for any other body.
  int64_t OnlySleeps(const SyntaxNode& body);
  // Whether a loop's body trains (Optimises), itself or through a def of the file it calls
  // (`train_step(x, y)`, a tf.function whose body applies the gradients).
  bool TrainsThrough(const SyntaxNode& body);
  // A statement of a loop's own timing (a comment, `pass`, a print, a clock read, a
  // `time.sleep` of seconds the code gives, added to `slept`): true; false for any other.
  bool TimingOnly(const SyntaxNode& statement, int64_t& slept);
  // Whether every call in `node` is the time module's (a clock read); `depth` bounds it.
  bool OnlyClocks(const SyntaxNode& node, int depth);
  // `X, Y = gen.next()`, `batch = next(it)`, `it.__next__()` as a statement: the pipeline
  // whose next element it takes; Unknown for any other statement.
  // `spelled`, where given, gets the iterator's text (`gen`).
  Value NextTaken(const SyntaxNode& statement, std::string* spelled = nullptr);
  // A loop body that takes one pipeline's next element and otherwise only times, prints
  // and sleeps: that pipeline and the sleeps (the step it stands for); nullopt otherwise.
  struct NextAndSleep {
    Value pipeline;
    int64_t slept_ns = 0;
    std::string spelled;  // the iterator as the code writes it (`gen`)
  };
  std::optional<NextAndSleep> TakesNextThenSleeps(const SyntaxNode& body);
  // `time.sleep(seconds)` as a statement, of seconds the code gives: its ns; nullopt for any
  // other statement.
  std::optional<int64_t> SleepStatementNs(const SyntaxNode& statement);
  // A TensorFlow 1 loop body that only runs a pipeline's next element (`sess.run(next_batch)`,
  // inside a try whose except clauses only leave the loop): that pipeline, which the loop
  // times alone; Unknown for any other body.
  Value OnlyRunsNext(const SyntaxNode& body);
  // A loop (for or while) whose body only runs a pipeline's next element: that pipeline is
  // the one trained on, with no step (the loop times the input alone).
  void TimesNextAlone(const SyntaxNode& loop);
  // Reads `body` again, in isolation, with `scope` innermost and its calls recorded in
  // `calls`; returns the scope as the body left it, and what it returns in `returned`.
  std::map<std::string, Value> ReadAgain(const SyntaxNode& body, std::map<std::string, Value> scope,
                                         std::vector<RecordedCall>& calls,
                                         Value* returned = nullptr);
  void ReadBlock(const SyntaxNode& block);
  void ReadStatement(const SyntaxNode& statement);
  void ReadFunction(const SyntaxNode& def, ClassInfo* owner);
  void ReadIf(const SyntaxNode& statement);
  void ReadClass(const SyntaxNode& def);
  void ReadImport(const SyntaxNode& statement);
  // A module beside the file, `dotted` as the import spells it (leading dots: relative to the
  // importing file's package): its names as its definitions bind them, read once in each
  // reading of the file; nullptr where no such file is there (a framework, an installed
  // package) or it is being read (an import cycle).
  struct Module {
    std::unique_ptr<PythonTree> tree;
    std::map<std::string, Value> names;
    int reading = -1;  // the reading of the file (Read's pass) its names are from
    bool open = false;
  };
  const Module* LocalModule(const std::string& dotted, const SyntaxNode& at);
  // Binds a module's names under `prefix.` (`import utils`: utils.load_image).
  void BindModule(const std::string& prefix, const Module& module);
  void Assign(const SyntaxNode& target, const Value& value);
  void Bind(const std::string& name, const Value& value);
  // A parameter's default (`batch_size=64`); Unknown for one without.
  Value DefaultOf(const SyntaxNode& parameter);
  const Value* Lookup(const std::string& name) const;
  void Use(const Value& value, const std::string& variable, const SyntaxNode& at,
           bool trains = false);

  Value Call(const SyntaxNode& call);
  // How many items `call`, a list's append, adds: the count of the `for _ in range(N)` loop
  // being read where the call is a statement of that loop's body itself (not under an if)
  // and the list (`made`, its expression) was made before the loop; 1 otherwise.
  int64_t TurnsOfAnAppend(const SyntaxNode& call, const SyntaxNode& made) const;
  CallArgs Arguments(const SyntaxNode& argument_list);
  Value Literal(const SyntaxNode& node) const;
  std::string FStringStore(const SyntaxNode& fstring);
  // A call made while a function's calls are recorded, counted as often as the loops and
  // comprehensions around it turn (RecordedCall::times).
  void Record(std::string path, const Value& callee, const CallArgs& args);
  // The length of a slice [start:stop] where the bounds differ by a number whatever the
  // values only the run knows (`x[idx * bs:(idx + 1) * bs]`); nullopt otherwise.
  std::optional<int64_t> SliceLength(const SyntaxNode& start, const SyntaxNode& stop);
  struct LinearBound;
  LinearBound LinearOf(const SyntaxNode& bound, int depth);
  Value Binary(const SyntaxNode& node);
  Value Compare(const SyntaxNode& node);

  const PythonTree& tree_;
  std::vector<const Dialect*> dialects_;
  std::filesystem::path folder_;
  // By path from folder_; their trees live as long as the reader, as values point into them.
  std::map<std::string, Module> modules_;
  // What a module's functions find of their own module's names when called from the file
  // (names are looked up where the call is read, after the file's own).
  std::vector<const std::map<std::string, Value>*> module_globals_;
  int reading_ = 0;
  // The `for` loops being read, innermost last: a range's iterations (0: not a range of
  // known length) and where each loop is.
  std::vector<int64_t> range_loops_;
  std::vector<SourcePoint> range_starts_;
  std::vector<int> range_first_ids_;       // the first pipeline id made in each loop's body
  std::vector<SyntaxNode> range_bodies_;   // each loop's body
  std::map<int, LoopEpochs> loop_epochs_;  // by pipeline id
  // The pipelines each def's body loops over (by the def's start byte), read where it is
  // defined: a call of it from `for epoch in range(N):` with no known argument (train(),
  // train(epoch), over a loader the def finds as a global) is not read again, and still
  // goes over them N times.
  std::map<size_t, std::set<int>> def_iterates_;
  std::vector<std::map<std::string, Value>> scopes_;
  // Whether the file speaks of an accelerator anywhere (NamesAnAccelerator), walked once.
  bool FileNamesAnAccelerator();
  std::optional<bool> names_accelerator_;
  int sleep_defs_followed_ = 0;  // SleepStatementNs's depth into the file's defs
  std::map<std::string, ClassInfo> classes_;
  std::set<std::string> instantiating_;  // classes whose __init__ InstanceAttributes reads
  std::map<std::string, Value> flags_;
  std::map<size_t, Value> function_returns_;  // by the def's start byte
  std::vector<size_t> open_functions_;        // defs being read, innermost last
  std::vector<PipelineUse> uses_;
  std::map<std::string, int64_t> saved_;  // NoteSaved's
  StartMethodSet start_method_;
  std::vector<CodeNote> notes_;
  std::vector<std::pair<SourcePoint, std::string>> pragmas_;
  std::vector<int> parent_of_;                // by pipeline id
  std::map<int, std::vector<int>> taken_in_;  // by pipeline id: what it took in (TakesIn)
  int apply_depth_ = 0;
  // A return read in a def's body where nothing guessed leads to it (no condition read as
  // true for want of its value, no loop, no except clause): Python leaves the def there, so
  // the statements after it are not read (`if self.training: return ds.shuffle(...)` before
  // `return ds.batch(8)`). A return under a guess leaves them read, as another reading of
  // the guess would.
  bool returned_ = false;
  int guessed_paths_ = 0;
  struct OnAGuessedPath {
    explicit OnAGuessedPath(PythonReader& r, bool guessed = true) : r_(r), guessed_(guessed) {
      r_.guessed_paths_ += guessed_ ? 1 : 0;
    }
    ~OnAGuessedPath() { r_.guessed_paths_ -= guessed_ ? 1 : 0; }
    OnAGuessedPath(const OnAGuessedPath&) = delete;
    OnAGuessedPath& operator=(const OnAGuessedPath&) = delete;
    PythonReader& r_;
    bool guessed_;
  };
  // A def's body read on its own: no return read yet, nothing guessed on its way, and no
  // loop around it: the loops around its call (a loader made in `for epoch in range(10):`)
  // turn the call, not each call's work (RecordedCall::times), which was counted 10 times.
  struct InADefsBody {
    explicit InADefsBody(PythonReader& r)
        : r_(r),
          returned_(std::exchange(r.returned_, false)),
          guessed_(std::exchange(r.guessed_paths_, 0)),
          turns_(std::exchange(r.turns_, {})) {}
    ~InADefsBody() {
      r_.returned_ = returned_;
      r_.guessed_paths_ = guessed_;
      r_.turns_ = std::move(turns_);
    }
    InADefsBody(const InADefsBody&) = delete;
    InADefsBody& operator=(const InADefsBody&) = delete;
    PythonReader& r_;
    bool returned_;
    int guessed_;
    std::vector<std::optional<int64_t>> turns_;
  };
  // Bodies read again with a call's arguments (Apply) or an instance's (InstanceAttributes),
  // in one reading of the file. Depth
  // alone bounds a chain, not its breadth: methods each calling several others, a call
  // repeated many times, would be read a number of times exponential in the depth. Past
  // the budget a call takes its def's own reading, and a note says so once.
  static constexpr int64_t kMostBodyReads = 2000;
  int64_t body_reads_ = 0;
  bool SpendBodyRead();
  // Guessed conditions (NoteGuessedCondition) and the calls that may take them back.
  struct GuessedInDef {
    size_t note;       // its index in notes_
    size_t condition;  // the condition's start byte
    size_t def;        // the def's start byte
  };
  std::vector<size_t> defs_being_defined_;  // defs read where defined, innermost last
  std::vector<GuessedInDef> guessed_in_defs_;
  std::set<size_t> guessed_when_called_;         // conditions a call left unknown too
  std::set<size_t> defs_called_with_arguments_;  // their bodies read again with them
  std::set<size_t> defs_called_without_;         // called on unknowns outside a def's reading
  void TakeBackResolvedGuesses();
  // What `list(x)` or `tuple(x)` drains, where `e` is one: x's value; else unknown.
  Value Drained(const SyntaxNode& e);
  int nesting_ = 0;
  bool noted_too_deep_ = false;
  std::map<size_t, std::vector<RecordedCall>> calls_in_;  // by the function's start byte
  std::vector<std::vector<RecordedCall>*> recorders_;     // innermost last
  // The loops and comprehensions the calls being recorded are in, innermost last: each's
  // count of turns, where known (RecordedCall::times).
  std::vector<std::optional<int64_t>> turns_;
  // A comprehension's `for` clauses, each iterable evaluated once; while a function's calls
  // are recorded, its body read once for them (a __getitem__'s `[pil_loader(p) for p in
  // paths]`), its targets bound to the iterated items' first, each call counted as often as
  // the clauses turn (RecordedCall::times). How many items it makes, where it is one `for`
  // without an `if` over a count known; else nullopt.
  // `item`, where given: what the body makes of one turn (a path's store, say).
  std::optional<int64_t> ReadComprehension(const SyntaxNode& comprehension, Value* item = nullptr);
  // range(start, stop, step)'s bounds where the code shows them as numbers: of the range
  // `loop_over` counts (itself, a trange, the range inside a tqdm).
  struct RangeBounds {
    int64_t start = 0, stop = 0, step = 1;
  };
  std::optional<RangeBounds> BoundsOf(const SyntaxNode& loop_over);
  // [f(i) for i in range(a, b)] whose every item is a string the code shows (file names).
  std::optional<Value> KnownStrings(const SyntaxNode& comprehension);
  Value FString(const SyntaxNode& node);
  // How many items a loop over `iterated` takes: a list's, a tensor's first dimension.
  static std::optional<int64_t> TurnsOver(const Value& iterated);
};

// "tensorflow.compat.v1.data.X" and "tf.compat.v2.data.X" as "tf.data.X": the spellings of
// one name across TensorFlow versions.
std::string CanonicalPath(const std::string& path);

// Whether `node` is inside a def that tf.function compiles (`@tf.function`,
// `@tf.function(jit_compile=True)`): its code is TensorFlow's graph, with no Python per call.
bool InsideTfFunction(const SyntaxNode& node);

// Whether `word` holds `part` (lower case), whatever the case of its letters: how the code's
// own names are read for what they mean (`use_cuda`, `nb_train_samples`).
bool HoldsIgnoringCase(std::string_view word, std::string_view part);

}  // namespace pipescope::code

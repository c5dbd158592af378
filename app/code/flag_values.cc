// Values the code takes from where it runs, as import-code reads them. Command-line flags:
// argparse's add_argument and absl's (and tf.app.flags') DEFINE_* give each flag its default,
// which `args.name` and `FLAGS.name` then stand for (marked as a flag's, so a knob read from
// one says so). Python's argparse documentation: the flag's dest is its first long option
// with dashes as underscores, else its first short option, unless dest= says. os.cpu_count():
// this machine's cores, marked so too.

#include <algorithm>
#include <string>
#include <thread>

#include "app/code/dialects.h"

namespace pipescope::code {

namespace {

std::string DestOf(const CallArgs& a) {
  if (const Value* dest = a.Get("dest"); dest && dest->Is(Value::Kind::kString)) return dest->s;
  std::string chosen;
  for (const Value& option : a.positional) {
    if (!option.Is(Value::Kind::kString)) continue;
    std::string name = option.s;
    const bool long_option = name.starts_with("--");
    const bool short_option = !long_option && name.starts_with("-");
    if (!long_option && !short_option) return name;  // a positional argument: its own name
    name.erase(0, long_option ? 2 : 1);
    for (char& c : name) c = c == '-' ? '_' : c;
    if (long_option) return name;
    if (chosen.empty()) chosen = name;
  }
  return chosen;
}

Value AddArgument(PythonReader& r, const CallArgs& a) {
  const std::string dest = DestOf(a);
  if (dest.empty()) return Value{.node = a.node};
  if (const Value* d = a.Get("default")) {
    r.DefineFlag(dest, *d);
  } else if (const Value* action = a.Get("action"); action && action->Is(Value::Kind::kString)) {
    // store_true's default is False, store_false's True.
    if (action->s == "store_true" || action->s == "store_false") {
      r.DefineFlag(dest, Value{.kind = Value::Kind::kBool, .b = action->s == "store_false"});
    }
  } else {
    r.DefineFlag(dest, Value{.kind = Value::Kind::kNone});
  }
  return Value{.node = a.node};
}

// flags.DEFINE_integer(name, default, help) and its kin.
Value DefineFlag(PythonReader& r, const CallArgs& a) {
  const Value* name = a.Get(0, "name");
  const Value* d = a.Get(1, "default");
  if (name && name->Is(Value::Kind::kString) && d) r.DefineFlag(name->s, *d);
  return Value{.node = a.node};
}

// os.cpu_count(), multiprocessing.cpu_count(): the cores of the machine the code runs on,
// which the simulator's are until the job's are given.
Value CpuCount(PythonReader&, const CallArgs& a) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return Value{.kind = Value::Kind::kInt,
               .i = cores,
               .node = a.node,
               .run_time = "`" + std::string(a.node.text()) + "`: this machine's cores"};
}

}  // namespace

const Dialect& FlagsDialect() {
  static const Dialect d = [] {
    Dialect f;
    f.framework = "python";
    f.functions["?.add_argument"] = AddArgument;
    f.functions["?.parse_args"] = [](PythonReader&, const CallArgs& a) {
      return Value{.kind = Value::Kind::kInstance, .s = kParsedArguments, .node = a.node};
    };
    f.functions["?.parse_known_args"] = [](PythonReader&, const CallArgs& a) {
      Value parsed{.kind = Value::Kind::kInstance, .s = kParsedArguments, .node = a.node};
      return Value{.kind = Value::Kind::kList, .items = {parsed, Value{}}, .node = a.node};
    };
    // argparse.Namespace(batch_size=64, ...), types.SimpleNamespace(...): a config the code
    // writes out, its attributes its keywords (prototree's args, a notebook's config).
    for (const char* path : {"argparse.Namespace", "types.SimpleNamespace"}) {
      f.functions[path] = [](PythonReader&, const CallArgs& a) {
        Value ns{.kind = Value::Kind::kDict, .s = kKeywordNamespace, .node = a.node};
        for (const auto& [name, value] : a.keyword) {
          ns.items.push_back(Value{.kind = Value::Kind::kString, .s = name});
          ns.items.push_back(value);
        }
        return ns;
      };
    }
    for (const char* path : {"os.cpu_count", "multiprocessing.cpu_count", "psutil.cpu_count"}) {
      f.functions[path] = CpuCount;
    }
    for (const char* kind : {"integer", "float", "string", "boolean", "bool", "enum"}) {
      f.functions[std::string("flags.DEFINE_") + kind] = DefineFlag;
    }
    return f;
  }();
  return d;
}

}  // namespace pipescope::code

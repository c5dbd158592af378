#include "instrumentation/trace/import/trace_events.h"

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "instrumentation/trace/import/json_brackets.h"

namespace pipescope::trace {
namespace {

namespace od = simdjson::ondemand;

// Strings to ids, in an open-addressing table of (hash, id) with a hash that reads eight
// bytes a step: std::unordered_map's node lookups and byte-wise hash were a twentieth of an
// import, for a few thousand distinct names looked up millions of times.
class Interner {
 public:
  explicit Interner(std::deque<std::string>& strings) : strings_(strings), slots_(1024) {
    strings_.emplace_back();
    Insert(Hash(""), 0);
  }
  uint32_t Intern(std::string_view s) {
    const uint64_t hash = Hash(s);
    for (size_t i = hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[i];
      if (slot.id == kEmpty) break;
      if (slot.hash == hash && strings_[slot.id] == s) return slot.id;
    }
    strings_.emplace_back(s);
    const auto id = static_cast<uint32_t>(strings_.size() - 1);
    Insert(hash, id);
    return id;
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t hash = 0;
    uint32_t id = kEmpty;
  };

  static uint64_t Hash(std::string_view s) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      h = (h ^ word) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    // The last 0-7 bytes in at most two fixed-size loads that may overlap (the length is
    // in the hash already): a memcpy of a variable length was a library call per name.
    const char* rest = s.data() + i;
    const size_t left = s.size() - i;
    uint64_t tail = 0;
    if (left >= 4) {
      uint32_t low, high;
      std::memcpy(&low, rest, 4);
      std::memcpy(&high, rest + left - 4, 4);
      tail = low | uint64_t{high} << 32;
    } else if (left > 0) {
      tail = uint64_t{static_cast<uint8_t>(rest[0])} |
             uint64_t{static_cast<uint8_t>(rest[left / 2])} << 8 |
             uint64_t{static_cast<uint8_t>(rest[left - 1])} << 16;
    }
    h = (h ^ tail) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
  }

  void Insert(uint64_t hash, uint32_t id) {
    if (2 * (used_ + 1) > slots_.size()) {  // at most half full: probes stay short
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      for (const Slot& slot : old) {
        if (slot.id != kEmpty) Place(slot);
      }
    }
    Place({hash, id});
    ++used_;
  }
  void Place(const Slot& slot) {
    size_t i = slot.hash & (slots_.size() - 1);
    while (slots_[i].id != kEmpty) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = slot;
  }

  std::deque<std::string>& strings_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

// A JSON number of microseconds written in decimal ("1700000000123.456") to ns, exactly,
// without going through a double: a double holds 16 digits, and a timestamp in ns since the
// epoch has 19, so going through a double moved starts by up to 128 ns. False for
// what it does not handle (exponents, more than 9.2e15 us), left to strtod.
bool DecimalMicros(std::string_view text, int64_t& ns) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    if (digits == 16) return false;  // past int64 ns: the slow path says no
    whole = whole * 10 + (text[i] - '0');
  }
  if (digits == 0 || whole > 9'200'000'000'000'000) return false;
  int64_t fraction = 0;  // ns
  if (i < text.size() && text[i] == '.') {
    ++i;
    int scale = 100;
    bool round_up = false;
    size_t fraction_digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++fraction_digits) {
      if (scale > 0) {
        fraction += (text[i] - '0') * scale;
        scale /= 10;
      } else if (fraction_digits == 3) {
        round_up = text[i] >= '5';  // half away from zero, as llround did
      }
    }
    if (fraction_digits == 0) return false;
    fraction += round_up ? 1 : 0;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) return false;
  ns = whole * 1000 + fraction;
  if (negative) ns = -ns;
  return true;
}

// Microseconds (a number, or a number in a string, as some exporters write) to ns.
bool Micros(od::value v, int64_t& ns) {
  // A number's token is its text; a string's starts with its quote.
  const std::string_view token = v.raw_json_token();
  if (!token.empty() && token[0] != '"' && DecimalMicros(token, ns)) return true;
  double us = 0;
  if (v.get_double().get(us) != simdjson::SUCCESS) {
    std::string_view text;
    if (v.get_string().get(text) != simdjson::SUCCESS) return false;
    if (DecimalMicros(text, ns)) return true;
    char* end = nullptr;
    const std::string copy(text);
    us = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str()) return false;
  }
  if (!std::isfinite(us) || std::fabs(us) > 9.2e15) return false;  // within int64 ns
  ns = std::llround(us * 1000.0);
  return true;
}

int64_t Integer(od::value v) {
  int64_t i = 0;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d = 0;
  if (v.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) < 9e18)
    return static_cast<int64_t>(d);
  std::string_view s;  // ids are often hex strings ("0x1a")
  if (v.get_string().get(s) == simdjson::SUCCESS) {
    const std::string copy(s);
    return static_cast<int64_t>(std::strtoull(copy.c_str(), nullptr, 0));
  }
  return 0;
}

struct Parser {
  TraceEvents& out;
  Interner interner{out.strings};
  uint64_t skipped = 0;
  std::unordered_map<std::string, int32_t> named_pids;  // "Spans", "Traces": negative ids
  std::vector<char> minified;  // scratch, as long as the longest arguments so far

  // The arguments' text without the white space between its tokens (a pretty-printed
  // trace's arguments are half indentation), by simdjson's vectorized minifier: the
  // memchr loop over strings it replaced was a tenth of an import.
  std::string_view Minify(std::string_view json) {
    // The minifier writes whole 64-byte blocks: room past the text's own length.
    if (minified.size() < json.size() + 64) minified.resize(2 * json.size() + 64);
    size_t size = 0;
    if (simdjson::minify(json.data(), json.size(), minified.data(), size) != simdjson::SUCCESS)
      return json;
    return {minified.data(), size};
  }

  // A pid: a number, a number in a string, or a name, which gets an id of its own.
  int32_t Pid(od::value v) {
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) {
      const std::string copy(s);
      char* end = nullptr;
      const long long n = std::strtoll(copy.c_str(), &end, 0);
      if (end != copy.c_str() && *end == '\0') return static_cast<int32_t>(n);
      auto [it, added] = named_pids.try_emplace(copy, -1 - static_cast<int32_t>(named_pids.size()));
      if (added) out.process_names.try_emplace(it->second, copy);
      return it->second;
    }
    return static_cast<int32_t>(Integer(v));
  }

  // One event object. Unknown fields are skipped; a malformed field drops the event.
  bool Event(od::object object) {
    RawEvent e;
    std::string_view meta_name;  // args.name of a metadata event
    bool has_ts = false;
    for (auto field : object) {
      // Keys compared raw, without unescaping them (the text is padded, so reading a
      // key's length plus one past its start is safe).
      od::raw_json_string raw_key;
      if (field.key().get(raw_key) != simdjson::SUCCESS) return false;
      const char* k = raw_key.raw();
      auto key_is = [k](std::string_view name) {
        return std::memcmp(k, name.data(), name.size()) == 0 && k[name.size()] == '"';
      };
      od::value v;
      if (field.value().get(v) != simdjson::SUCCESS) return false;
      if (key_is("ph")) {
        std::string_view ph;
        if (v.get_string().get(ph) != simdjson::SUCCESS || ph.empty()) return false;
        e.ph = ph[0];
      } else if (key_is("ts")) {
        if (!Micros(v, e.ts_ns)) return false;
        has_ts = true;
      } else if (key_is("dur")) {
        if (!Micros(v, e.dur_ns) || e.dur_ns < 0) return false;
      } else if (key_is("name")) {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS) return false;
        e.name = interner.Intern(s);
      } else if (key_is("cat")) {
        std::string_view s;
        if (v.get_string().get(s) == simdjson::SUCCESS) e.cat = interner.Intern(s);
      } else if (key_is("pid")) {
        e.pid = Pid(v);
      } else if (key_is("tid")) {
        e.tid = Integer(v);
      } else if (key_is("id")) {
        e.id = Integer(v);
      } else if (key_is("bp")) {
        std::string_view bp;
        e.binds_enclosing = v.get_string().get(bp) == simdjson::SUCCESS && bp == "e";
      } else if (key_is("args")) {
        od::object args;
        if (v.get_object().get(args) != simdjson::SUCCESS) continue;
        // Metadata (its name) and counters (their value) read their arguments; every
        // other event keeps them as written.
        if (e.ph != 0 && e.ph != 'M' && e.ph != 'C') {
          std::string_view raw;
          if (args.raw_json().get(raw) != simdjson::SUCCESS) return false;
          if (raw.size() > 2) {
            const std::string_view text = Minify(raw);
            if (text != "{}") e.args = out.args.Add(text);
          }
          continue;
        }
        for (auto arg : args) {
          std::string_view arg_key;
          od::value arg_value;
          if (arg.unescaped_key().get(arg_key) || arg.value().get(arg_value)) break;
          if (arg_key == "name" || arg_key == "labels") {
            if (arg_value.get_string().get(meta_name) != simdjson::SUCCESS) meta_name = {};
            if (!meta_name.empty()) meta_name = out.strings[interner.Intern(meta_name)];
          } else if (e.value == 0) {
            double d = 0;
            if (arg_value.get_double().get(d) == simdjson::SUCCESS) e.value = d;
          }
        }
      }
    }
    if (e.ph == 'M') {
      const std::string& what = out.str(e.name);
      if (what == "process_name") out.process_names[e.pid] = std::string(meta_name);
      if (what == "thread_name") out.thread_names[{e.pid, e.tid}] = std::string(meta_name);
      if (what == "process_labels") out.process_labels[e.pid] = std::string(meta_name);
      return true;
    }
    if (!has_ts || e.ph == 0) return false;
    out.events.push_back(e);
    return true;
  }
};

std::string At(const std::string& source, size_t offset) {
  return source + " at byte " + std::to_string(offset);
}

size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  return i;
}

void CheckTrailingText(std::string_view t, size_t after, bool object_form,
                       const std::string& source, TraceEvents& out);

// One import: the events so far, and the JSON parser, reused by every chunk so its buffers
// are allocated (and their pages touched) once.
struct Session {
  explicit Session(const EventParseOptions& o) : options(o) {}
  const EventParseOptions& options;
  TraceEvents out;
  Parser parser{out};
  od::parser json_parser;
  uint64_t seen = 0;
  size_t after_events = 0;  // where the last document parsed has its event array's end

  // Where the session stands, to go back to when a piece turns out not to parse.
  struct Mark {
    size_t events;
    uint64_t skipped, seen;
    size_t args;
  };
  Mark Here() const { return {out.events.size(), parser.skipped, seen, out.args.size()}; }
  void Rewind(const Mark& m) {
    out.events.resize(m.events);
    out.args.Truncate(m.args);
    parser.skipped = m.skipped;
    seen = m.seen;
  }
};

bool Structural(simdjson::error_code e) {
  return e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::TAPE_ERROR ||
         e == simdjson::UNCLOSED_STRING;
}

// Parses one document (padded) into the session. `offset` is where it starts in the file
// and `file_size` the whole file's (errors and progress). A document cut off while written
// fails as a whole (its brackets do not close): `cut` says so, for the caller to close it.
engine::Status ParseDocument(std::string_view json, size_t offset, size_t file_size,
                             const std::string& source, Session& s, bool& cut) {
  cut = false;
  od::document doc;
  if (auto error =
          s.json_parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
              .get(doc)) {
    cut = Structural(error);
    return engine::InvalidArgument(source + ": not JSON (" + simdjson::error_message(error) + ")");
  }
  od::array events;
  od::json_type type;
  if (auto error = doc.type().get(type)) {
    cut = Structural(error);
    return engine::InvalidArgument(source + ": not JSON (" + simdjson::error_message(error) + ")");
  }
  if (type == od::json_type::object) {
    const auto error = doc.find_field_unordered("traceEvents").get_array().get(events);
    if (Structural(error)) {
      cut = true;
      return engine::InvalidArgument(source + ": the JSON ends early");
    }
    if (error != simdjson::SUCCESS) {
      return engine::InvalidArgument(source +
                                     ": a JSON object without a \"traceEvents\" array: not a "
                                     "Chrome trace (nor a PyTorch or TensorFlow profiler trace)");
    }
  } else if (type == od::json_type::array) {
    if (auto error = doc.get_array().get(events)) {
      cut = Structural(error);
      return engine::InvalidArgument(source + ": " + simdjson::error_message(error));
    }
  } else {
    return engine::InvalidArgument(source +
                                   ": the JSON is neither an object with \"traceEvents\" "
                                   "nor an array of events");
  }
  const char* base = json.data();
  auto location = [&] {
    const char* where = nullptr;
    return offset + (doc.current_location().get(where) == simdjson::SUCCESS
                         ? static_cast<size_t>(where - base)
                         : json.size());
  };
  for (auto item : events) {
    od::object object;
    if (auto error = item.get_object().get(object)) {
      if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || error == simdjson::TAPE_ERROR) {
        cut = true;
        return engine::InvalidArgument(At(source, location()) + ": the JSON ends early");
      }
      return engine::InvalidArgument(At(source, location()) + ": an event is not a JSON object (" +
                                     simdjson::error_message(error) + ")");
    }
    if (!s.parser.Event(object)) ++s.parser.skipped;
    if (++s.seen > s.options.max_events) {
      return engine::Status(engine::StatusCode::kResourceExhausted,
                            source + ": more than " + std::to_string(s.options.max_events) +
                                " events; import a shorter window of the run");
    }
    if ((s.seen & 0xFFFF) == 0 && s.options.progress &&
        !s.options.progress(static_cast<double>(location()) / static_cast<double>(file_size))) {
      return engine::Status(engine::StatusCode::kCancelled, "import cancelled");
    }
  }
  s.after_events = location() - offset;
  return engine::Status::Ok();
}

// A document cut off while written (a profiler killed mid-run): its event array is closed
// after the last event that is complete and parsed again. A '}' may close an event's
// "args" instead of the event: then the next one back is tried.
engine::Status ParseRepaired(std::string_view json, size_t offset, size_t file_size,
                             const std::string& source, Session& s) {
  const size_t first = json.find_first_not_of(" \t\r\n");
  const std::string closing = first != std::string_view::npos && json[first] == '{' ? "]}" : "]";
  const Session::Mark before = s.Here();
  size_t end = json.size();
  for (int attempt = 0; attempt < 64; ++attempt) {
    end = json.rfind('}', end == 0 ? 0 : end - 1);
    if (end == std::string_view::npos || end == 0) break;
    std::string repaired(json.substr(0, end + 1));
    repaired += closing;
    const size_t size = repaired.size();
    repaired.resize(size + simdjson::SIMDJSON_PADDING, '\0');
    s.Rewind(before);  // a failed attempt may have added some
    bool again = false;
    engine::Status status =
        ParseDocument(std::string_view(repaired.data(), size), offset, file_size, source, s, again);
    if (!status.ok()) {
      if (again) continue;
      return status;
    }
    s.out.warnings.insert(s.out.warnings.begin(),
                          At(source, offset + end + 1) +
                              ": the file ends early (a trace cut off while written?); kept the " +
                              std::to_string(s.out.events.size()) + " events before the cut");
    return engine::Status::Ok();
  }
  return engine::InvalidArgument(source + ": the JSON ends early and no complete event was found");
}

engine::Status ParseWhole(std::string_view json, const std::string& source, Session& s) {
  bool cut = false;
  engine::Status status = ParseDocument(json, 0, json.size(), source, s, cut);
  if (status.ok()) {
    CheckTrailingText(json, s.after_events, json[SkipSpace(json, 0)] == '{', source, s.out);
    return status;
  }
  if (!cut) return status;
  s.Rewind({0, 0, 0, 1});
  // A whole document followed by other text fails to parse as one: parse the document,
  // and report the rest.
  const size_t end = BracketClose(json, SkipSpace(json, 0), 0);
  if (end != std::string_view::npos && SkipSpace(json, end) < json.size()) {
    engine::Status whole = ParseDocument(json.substr(0, end), 0, json.size(), source, s, cut);
    if (whole.ok()) {
      CheckTrailingText(json, s.after_events, json[SkipSpace(json, 0)] == '{', source, s.out);
      return whole;
    }
    s.Rewind({0, 0, 0, 1});
  }
  return ParseRepaired(json, 0, json.size(), source, s);
}

// ---- large files: the event array in chunks of about options.chunk_bytes, each parsed as an
// array of its own with the one parser, so memory and page faults stay bounded by the chunk
// (simdjson's buffers are several times the document they parse).

// Where the event array's first event starts, or npos (not a trace this path handles).
size_t EventsStart(std::string_view t) {
  size_t i = SkipSpace(t, 0);
  if (i < t.size() && t[i] == '[') return i + 1;
  if (i >= t.size() || t[i] != '{') return std::string_view::npos;
  const size_t key = t.find("\"traceEvents\"");
  if (key == std::string_view::npos) return std::string_view::npos;
  i = SkipSpace(t, key + 13);
  if (i >= t.size() || t[i] != ':') return std::string_view::npos;
  i = SkipSpace(t, i + 1);
  return i < t.size() && t[i] == '[' ? i + 1 : std::string_view::npos;
}

// The next place at or after `from` (and before `limit`) that looks like the end of one
// event and the start of the next: '}' ',' '{' with spaces between. It may be inside a
// string: then the chunk ending there does not parse, and the caller looks further.
size_t NextSplit(std::string_view t, size_t from, size_t limit) {
  for (size_t i = t.find('}', from); i != std::string_view::npos && i < limit;
       i = t.find('}', i + 1)) {
    size_t j = SkipSpace(t, i + 1);
    if (j >= t.size() || t[j] != ',') continue;
    j = SkipSpace(t, j + 1);
    if (j < t.size() && t[j] == '{') return i;
  }
  return std::string_view::npos;
}

// What follows the event array, whose ']' ends just before `after`: the object's other
// members (object form) and then nothing but white space. Anything else is reported.
void CheckTrailingText(std::string_view t, size_t after, bool object_form,
                       const std::string& source, TraceEvents& out) {
  size_t end = after;
  if (object_form) {
    end = BracketClose(t, after, 1);
    if (end == std::string_view::npos) {
      out.warnings.push_back(At(source, after) +
                             ": the JSON object around the event array never closes; kept "
                             "the events");
      return;
    }
  }
  size_t rest = SkipSpace(t, end);
  while (rest < t.size() && t[rest] == '\0') ++rest;  // a writer's padding
  if (rest >= t.size()) return;
  std::string snippet(t.substr(rest, 24));
  for (char& c : snippet) c = (c >= ' ' && c < 127) ? c : ' ';
  out.warnings.push_back(At(source, rest) + ": " + std::to_string(t.size() - rest) +
                         " bytes of text after the end of the JSON document (\"" + snippet +
                         "\"...): ignored, the events before them were read");
}

// Gives the whole pages of t[released, upto) back to the system: nothing reads parsed text
// again, and a large trace's text need not stay in memory beside its events. Returns how
// far text has been given back. A file mapping reads back from the file; heap pages would
// read as zeros, which is why nothing may.
size_t ReleasePages(std::string_view t, size_t released, size_t upto) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // The first and last whole pages in the range, as addresses (the text's own start need not
  // be page-aligned), then as offsets into the text for madvise.
  const auto base = reinterpret_cast<uintptr_t>(t.data());
  const uintptr_t from = (base + released + page - 1) / page * page;
  const uintptr_t to = (base + upto) / page * page;
  if (to >= from + (size_t{4} << 20)) {  // in steps of 4 MB or more: one call per piece
    madvise(const_cast<char*>(t.data()) + (from - base), to - from, MADV_DONTNEED);
    return to - base;
  }
  return released;
}

class ChunkBuffer {
 public:
  // "[" + piece + "]" and the padding.
  std::string_view Wrap(std::string_view piece) {
    const size_t size = piece.size() + 2;
    if (buffer_.size() < size + simdjson::SIMDJSON_PADDING)
      buffer_.resize(2 * size + simdjson::SIMDJSON_PADDING, '\0');
    buffer_[0] = '[';
    std::memcpy(buffer_.data() + 1, piece.data(), piece.size());
    buffer_[size - 1] = ']';
    std::memset(buffer_.data() + size, 0, simdjson::SIMDJSON_PADDING);
    return {buffer_.data(), size};
  }

 private:
  std::string buffer_;
};

// The events in t[from, to), wrapped as an array and parsed. nullopt when they are not
// whole events (the split was inside a string or an event) or the piece is cut: the session
// is then as it was. Else the parse's own status.
std::optional<engine::Status> ParsePiece(std::string_view t, size_t from, size_t to,
                                         const std::string& source, ChunkBuffer& buffer,
                                         Session& s) {
  const std::string_view piece = t.substr(from, to - from);
  if (!WholeEvents(piece)) return std::nullopt;
  const Session::Mark before = s.Here();
  bool cut = false;
  const engine::Status status =
      ParseDocument(buffer.Wrap(piece), from - 1, t.size(), source, s, cut);
  if (status.ok() || !cut) return status;
  s.Rewind(before);
  return std::nullopt;
}

// Chunked parse; nullopt when the text's shape is not one this path handles (the whole
// document is then parsed in one piece, with that path's errors).
std::optional<engine::Status> ParseChunked(std::string_view t, const std::string& source,
                                           Session& s) {
  const size_t start = EventsStart(t);
  if (start == std::string_view::npos) return std::nullopt;
  ChunkBuffer buffer;
  const size_t chunk = std::max<size_t>(s.options.chunk_bytes, 1);
  const bool object_form = t[SkipSpace(t, 0)] == '{';
  size_t from = start;
  size_t released = 0;  // text before this has been given back
  while (true) {
    size_t split =
        t.size() - from > chunk ? NextSplit(t, from + chunk, t.size()) : std::string_view::npos;
    if (split == std::string_view::npos) {
      // The last piece: up to the ']' that closes the array, found outside strings, so that
      // a ']' in the text after the array (Kineto's metadata has many) cannot pass for it.
      const size_t close = BracketClose(t, from, 1);
      if (close == std::string_view::npos) break;  // cut off: repaired below
      auto parsed = ParsePiece(t, from, close - 1, source, buffer, s);
      if (!parsed) break;
      if (parsed->ok()) CheckTrailingText(t, close, object_form, source, s.out);
      return *parsed;
    }
    for (int attempt = 0;; ++attempt) {
      if (split == std::string_view::npos || attempt == 64) {
        // No place to split found: the whole document in one piece instead, unless the
        // text before this piece was already given back.
        if (released > 0) {
          return engine::InvalidArgument(
              At(source, from) +
              ": no place to split the event array found in the 64 candidates after this "
              "point; the events cannot be read in pieces");
        }
        s.Rewind({0, 0, 0, 1});
        return std::nullopt;
      }
      if (auto parsed = ParsePiece(t, from, split + 1, source, buffer, s)) {
        if (!parsed->ok()) return *parsed;
        break;
      }
      split = NextSplit(t, split + 1, t.size());  // inside a string or an event: look further
    }
    from = SkipSpace(t, SkipSpace(t, split + 1) + 1);  // past '}' ','
    if (s.options.release_parsed_text) released = ReleasePages(t, released, from);
  }
  // No closing ']' works: the file was cut off. Close the rest after its last whole event.
  std::string rest;
  rest.reserve(t.size() - from + 1);
  rest += '[';
  rest.append(t.substr(from));
  return ParseRepaired(rest, from - 1, t.size(), source, s);
}

}  // namespace

engine::Result<TraceEvents> ParseTraceEvents(std::string_view json, const std::string& source,
                                             const EventParseOptions& options) {
  // A byte-order mark is not JSON, but editors on Windows write one: skipped.
  if (json.starts_with("\xEF\xBB\xBF")) json.remove_prefix(3);
  if (json.starts_with("\xFF\xFE") || json.starts_with("\xFE\xFF")) {
    return engine::InvalidArgument(source +
                                   ": UTF-16 text; a trace must be UTF-8 (save it as UTF-8)");
  }
  const size_t first = SkipSpace(json, 0);
  if (first == json.size()) {
    return engine::InvalidArgument(
        source + (json.empty() ? ": the file is empty" : ": the file holds only white space"));
  }
  if (json[first] != '{' && json[first] != '[') {
    std::string snippet(json.substr(first, 32));
    for (char& c : snippet) c = (c >= ' ' && c < 127) ? c : '?';
    return engine::InvalidArgument(
        At(source, first) + ": " +
        (source.ends_with(".gz") ? "the decompressed text" : "the text") +
        " is not JSON: it starts with \"" + snippet +
        "\" (a Chrome, PyTorch or TensorFlow trace starts with { or [)");
  }
  Session s(options);
  s.out.events.reserve(json.size() / 160);  // a typical event's bytes: one growth at most
  // Arguments are at most the text; a growth by doubling would copy them all again.
  s.out.args.Reserve(json.size() / 2, json.size() / 160);
  std::optional<engine::Status> chunked;
  if (json.size() > options.chunked_above) chunked = ParseChunked(json, source, s);
  const engine::Status status = chunked ? *chunked : ParseWhole(json, source, s);
  RETURN_IF_ERROR(status);
  if (s.parser.skipped > 0) {
    s.out.warnings.push_back(source + ": skipped " + std::to_string(s.parser.skipped) +
                             " events without a usable ph/ts or with malformed fields");
  }
  return std::move(s.out);
}

}  // namespace pipescope::trace

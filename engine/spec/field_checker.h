#pragma once
// Collects a spec's problems, each with the line of the field it names when the spec came
// from a file: the validator's walk and every op kind's own field checks (OpFieldCheck)
// write to one FieldChecker, so all problems are reported at once, in the same words.

#include <google/protobuf/text_format.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// Where in the user's file a message lives: its parse subtree and the line it starts on.
struct Where {
  const google::protobuf::TextFormat::ParseInfoTree* tree = nullptr;
  int line = -1;     // 0-based, -1 when unknown
  std::string what;  // "op 'decode' (map)"
};

class FieldChecker {
 public:
  using Message = google::protobuf::Message;

  explicit FieldChecker(std::string source) : source_(std::move(source)) {}

  // Where `field` of `msg` is: the field's own line when it was written, else the
  // enclosing message's line.
  int LineOf(const Message& msg, const Where& where, const char* field, int index = -1) const;
  Where Nested(const Message& msg, const Where& where, const char* field, std::string what,
               int index = -1) const;

  void Fail(const Message& msg, const Where& where, const char* field, const std::string& text);
  // Whether a problem was reported for `field` of `msg` (a kind's own check said it better
  // than the generic range check would).
  bool Failed(const Message& msg, std::string_view field) const;

  // A number that is not an op's knob (the training step's, the budget's).
  void AtLeast(const Message& msg, const Where& where, const char* field, int64_t value,
               int64_t min);
  // A numeric knob of an op of `kind`: within its description's range, or AUTOTUNE where
  // the description allows it.
  void Knob(const Message& msg, const Where& where, std::string_view kind, const char* field,
            int64_t value);
  void Duration(const Message& msg, const Where& where, const char* field, const std::string& text,
                bool required);
  void Rate(const Message& msg, const Where& where, const char* field, const std::string& text);
  // The share of a Python call's time under the interpreter lock (field gil_share): 0 to 1.
  void GilShare(const Message& msg, const Where& where, double share);
  // The files a call reads from the spec's disk (fields read_bytes, read_files): their bytes
  // up to 1 TiB, their count up to a million.
  void FileReads(const Message& msg, const Where& where, int64_t bytes, int64_t files);
  // A work function's own fields (a duration, a gil_share), `fw` being where `fn` is; false
  // where no function was given (the caller says what is required).
  bool WorkFunction(const spec::WorkFunction& fn, const Where& fw);

  Status Finish() const;

 private:
  std::string source_;
  std::vector<std::string> errors_;
  std::set<std::pair<const Message*, std::string>> failed_;
};

// What an op kind's own field checks see of one op: its kind's message, where it was
// written, what it takes. Knob ranges and the sub-pipeline of an op that opens one are
// checked by the validator for every kind; a kind checks what only it knows.
struct OpFieldCheck {
  FieldChecker& checker;
  const google::protobuf::Message& params;  // the op's kind message (the MapOp of a map)
  Where where;                              // of `params`, named "op 'decode' (map)"
  bool input_batched = false;               // the elements it takes are batches
  // What is known for sure of the elements it takes (false: not known, or not so): that
  // they are scalars (a source's, no batch or value-changing map since), that they are
  // strings (a file's records or lines, listed strings).
  bool input_scalars = false;
  bool input_strings = false;
  int depth = 0;  // 1: inside an interleave's sub-pipeline

  void Fail(const char* field, const std::string& text) {
    checker.Fail(params, where, field, text);
  }
  Where Nested(const char* field) const { return checker.Nested(params, where, field, where.what); }
};

}  // namespace pipescope::engine

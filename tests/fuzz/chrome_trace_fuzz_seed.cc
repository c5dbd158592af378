#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

// A little of everything the importer understands: metadata, PyTorch steps, DataLoader
// waits and GPU work, TensorFlow iterator paths, begin/end pairs, instants, counters and
// flows, with numbers as numbers and as strings; Kineto's capitalised and device-side
// categories, nested spans, async pairs, flow chains, a pid written as a name, arguments
// with arrays of objects and "}, {" in strings, and metadata with brackets after the array.
std::string FuzzSeed() {
  return R"({"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"args":{"name":"python3"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"MainThread"}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":2,"ts":100.5,"dur":1000},
{"ph":"X","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":2,"ts":101,"dur":400},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":"600","dur":"300","args":{"stream":7}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":550,"dur":40},
{"ph":"X","name":"Iterator::Root::Prefetch","pid":1,"tid":3,"ts":120,"dur":50},
{"ph":"X","name":"Iterator::Root::Prefetch::ParallelMapV2","pid":1,"tid":4,"ts":110,"dur":70},
{"ph":"B","name":"load","pid":2,"tid":1,"ts":0},{"ph":"E","pid":2,"tid":1,"ts":9},
{"ph":"i","name":"mark","pid":1,"tid":2,"ts":50,"s":"g"},
{"ph":"C","name":"queue","pid":1,"ts":60,"args":{"depth":2}},
{"ph":"s","id":"0x1","pid":1,"tid":2,"ts":150,"name":"flow"},{"ph":"f","id":"0x1","pid":0,"tid":7,"ts":600,"bp":"e"},
{"ph":"M","name":"process_labels","pid":0,"args":{"labels":"GPU 0"}},
{"ph":"X","cat":"Kernel","name":"old_gemm","pid":0,"tid":8,"ts":700,"dur":20,"args":{"grid":[{"x":1},{"y":[2,3]}],"s":"a}, {b\"c"}},
{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,"ts":590,"dur":500},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":"Spans","tid":2,"ts":102,"dur":50},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":2,"ts":102,"dur":60},
{"ph":"b","cat":"async","name":"fetch","id":5,"pid":1,"tid":2,"ts":130},{"ph":"e","cat":"async","name":"fetch","id":5,"pid":1,"tid":2,"ts":190},
{"ph":"s","cat":"fwdbwd","id":9,"pid":1,"tid":2,"ts":102,"name":"fwdbwd"},{"ph":"t","cat":"fwdbwd","id":9,"pid":1,"tid":3,"ts":120},{"ph":"f","cat":"fwdbwd","id":9,"pid":1,"tid":4,"ts":111}
], "INFO": ["x]", "]]"], "traceName": "t]"})";
}

}  // namespace pipescope::fuzz

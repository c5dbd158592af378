// import-code's speed on a large file: the corpus's pipelines (tests/code/corpus: the seed
// questions', TensorFlow's guides', PyTorch's and Keras's code) one after another until the
// file has 2,000 lines, read into a spec as `pipescope-cli import-code` does.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/code/code_import.h"
#include "app/code/python_tree.h"

namespace {

std::string LargeFile(size_t lines) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(PIPESCOPE_CORPUS)) {
    if (e.path().extension() == ".py") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  size_t count = 0;
  while (count < lines && !files.empty()) {
    for (const auto& f : files) {
      std::ifstream in(f);
      std::stringstream s;
      s << in.rdbuf();
      text += s.str() + "\n";
      count = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
      if (count >= lines) break;
    }
  }
  return text;
}

void BM_ImportCode2000Lines(benchmark::State& state) {
  const std::string text = LargeFile(2000);
  for (auto _ : state) {
    auto imported = pipescope::code::ImportCode(text, "large.py");
    if (!imported.ok()) state.SkipWithError(imported.status().message().c_str());
    benchmark::DoNotOptimize(imported);
  }
  state.counters["lines"] = static_cast<double>(std::count(text.begin(), text.end(), '\n'));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ImportCode2000Lines)->Unit(benchmark::kMillisecond)->UseRealTime();

// The part of it that is tree-sitter's parse alone.
void BM_ParsePython2000Lines(benchmark::State& state) {
  const std::string text = LargeFile(2000);
  for (auto _ : state) {
    pipescope::code::PythonTree tree(text);
    benchmark::DoNotOptimize(tree.root());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParsePython2000Lines)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

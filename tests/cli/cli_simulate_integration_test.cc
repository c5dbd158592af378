// pipescope-cli simulate and calibrate, as a user runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"

namespace pipescope::testing {
namespace {

using nlohmann::json;

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

TEST(CliSimulateTest, SummaryLikeRunMarkedSimulatedAndDeterministic) {
  const auto a = Cli("simulate " + Pipeline("input_bound_demo.pbtxt") + " --json --seed 4");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  const json j = json::parse(JsonPart(a.out));
  // decode makes a batch of 4 in ~12 ms, the step takes 8: ~80 steps/s, input-bound.
  EXPECT_NEAR(j["steps_per_s"].get<double>(), 80, 8);
  EXPECT_GT(j["input_wait_fraction"].get<double>(), 0.2);
  EXPECT_EQ(j["simulated"]["cost_model"], "spec");
  EXPECT_GT(j["simulated"]["virtual_s"].get<double>(), 4.9);
  const auto b = Cli("simulate " + Pipeline("input_bound_demo.pbtxt") + " --json --seed 4");
  EXPECT_EQ(json::parse(JsonPart(b.out))["steps"], j["steps"]);

  // Without advice, the verdict's suggestion is a rule of thumb and says so.
  const auto untried = Cli("simulate " + Pipeline("input_bound_demo.pbtxt") + " --no-advice");
  EXPECT_NE(untried.out.find("(a rule of thumb, not tried in the simulator: --no-advice)."),
            std::string::npos)
      << untried.out;
  // What the spec shows whatever the speed needs no simulation: said without advice too.
  const auto copies = Cli("simulate " + Pipeline("questions/pytorch_30599_iterable_workers.pbtxt") +
                          " --no-advice");
  EXPECT_NE(copies.out.find("every batch comes 4 times an epoch"), std::string::npos) << copies.out;
  const auto fixed = Cli("simulate " + Pipeline("input_bound_demo.pbtxt") +
                         " --set decode.num_parallel_calls=2 --json");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.out;
  EXPECT_LT(json::parse(JsonPart(fixed.out))["input_wait_fraction"].get<double>(), 0.05);
}

// Without --duration, a run whose first step comes late (seed 000's shuffle buffer takes
// 6.4 s to fill) runs again long enough to be graded on its steady part, and says so: in 5 s
// it was one step, "not input-bound"; from 32 s, reads are the limit.
TEST(CliSimulateTest, ALateFirstStepLengthensTheDefaultRun) {
  const auto r = Cli("simulate " + Pipeline("questions/seed_000_sharded.pbtxt") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the first step came at 6.4 s of start-up: simulating 32.1 s"),
            std::string::npos)
      << r.out;
  const json j = json::parse(JsonPart(r.out));
  EXPECT_GT(j["steps"].get<int64_t>(), 50);
  EXPECT_GT(j["input_wait_fraction"].get<double>(), 0.2);
  // Each piece of advice carries its pipeline, a move's too (it has no --set to try it with).
  bool split = false;
  for (const auto& a : j["advice"]) {
    if (a["kind"] != "split_files") continue;
    split = true;
    const std::string spec = a["spec"].get<std::string>();
    EXPECT_NE(spec.find("interleave"), std::string::npos) << spec;
    EXPECT_NE(spec.find("num_shards: 10"), std::string::npos) << spec;
  }
  EXPECT_TRUE(split) << j["advice"].dump();
  // Every prediction starts from the simulator's rate of the spec as given, which is given.
  const double from = j["advice_from_steps_per_s"].get<double>();
  EXPECT_GT(from, 0);
  for (const auto& a : j["advice"]) {
    EXPECT_NEAR(a["predicted_steps_per_s"].get<double>(),
                from * (1 + a["predicted_gain"].get<double>()), 1e-6 * from);
  }
  // With workers too, worker 0's first step deciding.
  const auto workers =
      Cli("simulate " + Pipeline("questions/seed_000_sharded.pbtxt") + " --workers 2 --json");
  ASSERT_EQ(workers.exit_code, 0) << workers.out;
  EXPECT_NE(workers.out.find("simulating 32.1 s"), std::string::npos) << workers.out;
  EXPECT_GT(json::parse(JsonPart(workers.out))["steps"].get<int64_t>(), 50);
  // A --duration is kept as given.
  const auto short_run =
      Cli("simulate " + Pipeline("questions/seed_000_sharded.pbtxt") + " --duration 5 --json");
  EXPECT_EQ(short_run.out.find("the first step came at"), std::string::npos);
}

// Without --duration, a pipeline with a cache runs until epochs that replay it are graded, as
// the advisor's runs do (tensorflow#24520's py_function loads, cached: its first epoch fills
// the cache in 150 s, the epochs after it take 5 s), and says so: a cache advice applied is
// then seen to gain as predicted.
TEST(CliSimulateTest, ACachedPipelineIsGradedOnTheEpochsThatReplayIt) {
  const std::string spec = TempPath("pipescope_cache_fills.pbtxt");
  std::ofstream(spec) << R"(name: "cache_fills"
    budget { cpu_cores: 4 }
    source { name: "volumes" range { stop: 400 } }
    ops { name: "load" map { fn { cpu_work { duration: "1500ms" } } num_parallel_calls: 4 } }
    ops { name: "cache" cache {} }
    ops { name: "batch" batch { batch_size: 12 } }
    ops { name: "epochs" repeat { count: 50 training_loop: true } }
    train_step { step_time: "150ms" device: simulated })";
  const auto r = Cli("simulate " + spec + " --json --no-advice");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the cache fills in the first epoch"), std::string::npos) << r.out;
  const json j = json::parse(JsonPart(r.out));
  EXPECT_GT(j["simulated"]["virtual_s"].get<double>(), 150) << r.out;
  // Replayed, a batch is there when the step asks: a step's 150 ms.
  EXPECT_NEAR(j["steps_per_s"].get<double>(), 1 / 0.15, 0.7) << r.out;
}

// Without --duration, a run of slow steps (keras#7168's 2,560-image batches, one every
// 0.7 s: a few in the default 5 s, "0.4 ± 0.4 steps/s") runs again until it has enough steps to
// be graded, and says so; a --duration is kept as given.
TEST(CliSimulateTest, SlowStepsLengthenTheDefaultRun) {
  const std::string spec = TempPath("pipescope_slow_steps.pbtxt");
  std::ofstream(spec) << R"(name: "slow_steps"
    budget { cpu_cores: 2 }
    source { name: "read" range { stop: 1000000 } }
    ops { name: "make" map { fn { cpu_work { duration: "700ms" } } } }
    train_step { step_time: "100ms" device: simulated })";
  const auto r = Cli("simulate " + spec + " --json --no-advice");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("only 7 steps in 5.0 s: simulating"), std::string::npos) << r.out;
  const json j = json::parse(JsonPart(r.out));
  EXPECT_GE(j["steps"].get<int64_t>(), 20);
  // The map runs in the training loop's thread, then the step: 0.8 s a step.
  EXPECT_NEAR(j["steps_per_s"].get<double>(), 1 / 0.8, 0.1);
  const auto asked = Cli("simulate " + spec + " --duration 5 --json --no-advice");
  EXPECT_EQ(asked.out.find("simulating"), std::string::npos) << asked.out;
  EXPECT_LT(json::parse(JsonPart(asked.out))["steps"].get<int64_t>(), 20);
}

// --workers N: worker 0's summary, then each worker and the job; only worker 0 prints its
// elements, which are its shard's; a worker without a shard is refused.
// A shuffle buffer of 1,000 records read at 25 ms each fills in 25 s: the default 5 s run
// gives no step at all (the simulator stops it at 20 s). The run goes on until its first step
// is known and graded on what follows; the advice runs its changes as long (it said "the
// pipeline gave the training step nothing" and gave none); the tuner's measurements, graded
// from the first step too, find a rate.
TEST(CliSimulateTest, AFirstStepAfterTheWholeDefaultRunIsWaitedFor) {
  const std::string spec = TempPath("pipescope_slow_fill.pbtxt");
  std::ofstream(spec) << R"(name: "slow_fill"
    budget { cpu_cores: 4 }
    source { name: "read" synthetic { records: -1 record_bytes: 1000 read_latency: "25ms" } }
    ops { name: "shuffle" shuffle { buffer_size: 1000 } }
    ops { name: "batch" batch { batch_size: 4 } }
    train_step { step_time: "10ms" device: simulated })";
  const auto r = Cli("simulate " + spec + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the first step came at 25.1 s of start-up: simulating 120.0 s"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("no advice"), std::string::npos) << r.out;
  const json j = json::parse(JsonPart(r.out));
  EXPECT_GT(j["steps"].get<int64_t>(), 100) << "95 s of one batch each 100 ms";
  EXPECT_NEAR(j["steps_per_s"].get<double>(), 10, 1) << "40 records/s, 4 a batch";
  EXPECT_FALSE(j["advice"].empty()) << "reading in parallel gains";
  const auto tuned = Cli("autotune " + spec + " --simulate --budget-s 200");
  EXPECT_EQ(tuned.exit_code, 0) << tuned.out;
  EXPECT_NE(tuned.out.find("measured the spec as given: 9."), std::string::npos) << tuned.out;
}

// tensorflow#14857's pipeline: decoded images into a shuffle buffer of 2,325,000. Whether
// the first step comes in the run or not at all, the verdict says the buffer is filling and
// the advice, tried on the start-up itself, shuffles the lines before decoding them or keeps
// a smaller buffer.
TEST(CliSimulateTest, AShuffleBufferFillingBeforeTheFirstStepIsAdvisedOn) {
  const std::string spec = TempPath("pipescope_big_shuffle.pbtxt");
  const auto write = [&](int64_t lines) {
    std::ofstream(spec) << "name: \"big_shuffle\"\n"
                        << "source { name: \"lines\" range { start: 0 stop: " << lines << " } }\n"
                        << R"(ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } }
    ops { name: "shuffle" shuffle { buffer_size: 2325000 } }
    ops { name: "batch" batch { batch_size: 64 } }
    train_step { step_time: "10ms" device: simulated })";
  };
  write(10000);  // the buffer holds the whole dataset, filled in 10 s: 1.3 s of steps after
  const auto late = Cli("simulate " + spec);
  ASSERT_EQ(late.exit_code, 0) << late.out;
  EXPECT_NE(late.out.find("the first step came after 10"), std::string::npos) << late.out;
  EXPECT_NE(late.out.find("[reorder, high] shuffle before 'decode'"), std::string::npos)
      << late.out;
  write(2325000);  // the buffer fills for 2325 s: no step in the run
  const auto none = Cli("simulate " + spec);
  EXPECT_NE(none.out.find("No input: no element reached the training step"), std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find("shuffle has taken"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("[reorder, high] shuffle before 'decode'"), std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find("[shuffle_buffer, high] lower shuffle's buffer_size 2325000 → 10000: "
                          "the first step after"),
            std::string::npos)
      << none.out;
  EXPECT_EQ(none.out.find("an empty file list"), std::string::npos) << none.out;
}

TEST(CliSimulateTest, WorkersEachRunTheirShardAndTheJobIsReported) {
  const std::string spec = TempPath("workers_spec.pbtxt");
  std::ofstream(spec) << R"(name: "sharded" source { name: "src" range { stop: 1000000 } }
      ops { name: "shard" shard { num_shards: 2 index: 0 } }
      ops { name: "work" map { fn { cpu_work { duration: "1ms" } } num_parallel_calls: 2 } }
      train_step { step_time: "1ms" })";
  const auto r = Cli("simulate " + spec + " --workers 2 --duration 2 --json --no-advice");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json j = json::parse(JsonPart(r.out));
  ASSERT_EQ(j["workers"].size(), 2U);
  EXPECT_EQ(j["job"]["workers"], 2);
  const double w0 = j["workers"][0]["steps_per_s"].get<double>();
  const double w1 = j["workers"][1]["steps_per_s"].get<double>();
  EXPECT_NEAR(j["job"]["steps_per_s"].get<double>(), w0 + w1, 1e-6);
  EXPECT_NEAR(j["job"]["synchronous_steps_per_s"].get<double>(), 2 * std::min(w0, w1), 1e-6);
  EXPECT_NEAR(j["steps_per_s"].get<double>(), w0, 1e-6) << "the summary is worker 0's";
  const auto printed = Cli("simulate " + spec + " --workers 2 --duration 1 --print 3 --no-advice");
  EXPECT_NE(printed.out.find("{\"id\""), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("\"value\":4}"), std::string::npos) << "worker 0: 0, 2, 4";
  EXPECT_NE(printed.out.find("2 workers on one host"), std::string::npos);
  const auto three = Cli("simulate " + spec + " --workers 3 --duration 1");
  EXPECT_NE(three.exit_code, 0);
  EXPECT_NE(three.out.find("worker 2 of 3 has no shard of its own"), std::string::npos)
      << three.out;
}

// simulate --print prints what reaches the training step as run --print does: the same
// values in the same order for deterministic specs (element ids aside, which only a real
// run allocates).
TEST(CliSimulateTest, PrintGivesTheElementsRunGives) {
  const std::string spec = TempPath("print_spec.pbtxt");
  std::ofstream(spec) << "source { range { start: 3 stop: 40 step: 2 } }\n"
                         "ops { shuffle { buffer_size: 5 seed: 0 } }\n"
                         "ops { shard { num_shards: 3 index: 1 } }\n"
                         "ops { map { fn { identity {} } num_parallel_calls: 2 } }\n"
                         "ops { batch { batch_size: 2 } }\n"
                         "train_step { step_time: \"1ms\" }\n";
  auto values = [](const std::string& out) {
    std::vector<json> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("{\"", 0) != 0) continue;
      lines.push_back(json::parse(line)["value"]);
    }
    return lines;
  };
  const auto simulated = Cli("simulate " + spec + " --print 100");
  const auto real = Cli("run " + spec + " --print 100");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.out;
  ASSERT_EQ(real.exit_code, 0) << real.out;
  const auto a = values(simulated.out), b = values(real.out);
  EXPECT_EQ(a.size(), 3u);  // 19 values, six of them in shard 1 of 3, in pairs
  EXPECT_EQ(a, b) << simulated.out << "\n" << real.out;

  // Elements that ops renumber or nest: a batch of batches (a list of lists), unbatched
  // rows, and a cache's replays.
  for (const char* ops : {"ops { batch { batch_size: 2 } } ops { batch { batch_size: 3 } }",
                          "ops { batch { batch_size: 3 } } ops { unbatch {} }",
                          "ops { batch { batch_size: 4 } } ops { cache {} } "
                          "ops { repeat { count: 2 } }"}) {
    std::ofstream(spec) << "source { range { start: 0 stop: 10 } }\n"
                        << ops << "\ntrain_step { step_time: \"1ms\" }\n";
    const auto sim = values(Cli("simulate " + spec + " --print 100").out);
    const auto run = values(Cli("run " + spec + " --print 100").out);
    EXPECT_FALSE(sim.empty()) << ops;
    EXPECT_EQ(sim, run) << ops;
  }
}

// A map that makes values of its own (fill) and padding: the simulator's elements show the
// values the engine makes, through the engine's own functions. A source of file records,
// whose content only a run reads, prints the records each element is.
TEST(CliSimulateTest, PrintMakesValuesAsTheEngineDoesOrSaysWhichRecords) {
  const std::string spec = TempPath("print_fill.pbtxt");
  // `command` ("simulate", "run") with --print 10 on a spec of `pipeline` and a 1 ms step.
  const auto printed = [&spec](const std::string& command, const std::string& pipeline) {
    std::ofstream(spec) << pipeline << "train_step { step_time: \"1ms\" }\n";
    const auto r = Cli(command + " " + spec + " --print 10");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return r.out;
  };
  const std::string fill =
      "source { range { start: 1 stop: 5 } }\n"
      "ops { map { fn { fill {} } } }\n"
      "ops { padded_batch { batch_size: 2 } }\n";
  const std::string sim = printed("simulate", fill);
  EXPECT_NE(sim.find(R"("value":[[1,0],[2,2]])"), std::string::npos) << sim;
  EXPECT_NE(sim.find(R"("value":[[3,3,3,0],[4,4,4,4]])"), std::string::npos) << sim;
  const std::string run = printed("run", fill);
  EXPECT_NE(run.find(R"("value":[[1,0],[2,2]])"), std::string::npos) << run;

  const std::string records = printed("simulate",
                                      "source { synthetic { records: 4 record_bytes: 8 } }\n"
                                      "ops { batch { batch_size: 2 } }\n");
  EXPECT_NE(records.find(R"({"records":[{"record":0,"pass":0},{"record":1,"pass":0}]})"),
            std::string::npos)
      << records;
  EXPECT_EQ(records.find("\"value\""), std::string::npos) << records;

  // An interleave's elements come from its sub-pipelines' sources, which the simulator's
  // lineage does not follow: the records say nothing either, and the output says why.
  const std::string interleaved =
      printed("simulate",
              "source { range { start: 0 stop: 4 } }\n"
              "ops { name: \"files\" interleave { cycle_length: 2 per_element {\n"
              "  synthetic_file { records_per_file: 2 record_bytes: 8 } } } }\n");
  EXPECT_NE(interleaved.find("values: 'files' reads records of files, whose content only a "
                             "run reads; the records instead (null: a record of a "
                             "sub-pipeline):"),
            std::string::npos)
      << interleaved;
}

TEST(CliSimulateTest, SavedTraceOpensEverywhereAndSaysItIsSimulated) {
  const std::string trace = TempPath("sim.pstrace");
  const auto r = Cli("simulate " + Pipeline("benchmarks/slow_storage.pbtxt") +
                     " --duration 3 --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("x real time"), std::string::npos) << r.out;
  const auto report = Cli("report " + trace + " --json");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_GT(json::parse(JsonPart(report.out))["steps"].get<int>(), 10);
  const auto converted = Cli("convert " + trace + " " + TempPath("sim.json"));
  EXPECT_EQ(converted.exit_code, 0) << converted.out;
}

// A saved trace of a run that reads the spec's disk keeps the disk's busy time: the report
// of the file says it and names the disk from the trace's spec, the verdict blames the disk,
// and the exported trace has its counter.
TEST(CliSimulateTest, ASavedTraceSaysHowBusyTheDiskWas) {
  const std::string trace = TempPath("disk.pstrace");
  const auto r = Cli("simulate " + Pipeline("questions/distiller_202_imagenet_hdd.py") +
                     " --duration 120 --no-advice --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto report = Cli("report " + trace + " --json");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  const json j = json::parse(JsonPart(report.out));
  ASSERT_TRUE(j.contains("storage_busy_fraction")) << report.out;
  EXPECT_GE(j["storage_busy_fraction"].get<double>(), 0.9);
  EXPECT_TRUE(j["storage"].get<std::string>().starts_with("hdd (")) << j["storage"];
  EXPECT_TRUE(j["verdict"]["evidence"].get<std::string>().starts_with("the disk is busy"))
      << j["verdict"]["text"];
  const std::string exported = TempPath("disk.json");
  ASSERT_EQ(Cli("convert " + trace + " " + exported).exit_code, 0);
  std::ifstream file(exported);
  const json events = json::parse(file)["traceEvents"];
  std::vector<double> disk_busy;  // percent of each 50 ms, as the report's share says
  for (const json& e : events) {
    if (e["ph"] == "C" && e["name"] == "disk busy") disk_busy.push_back(e["args"]["value"]);
  }
  EXPECT_GT(disk_busy.size(), 100u) << "a sample every 50 ms of 120 s";
  EXPECT_LE(*std::max_element(disk_busy.begin(), disk_busy.end()), 100);
  std::nth_element(disk_busy.begin(), disk_busy.begin() + disk_busy.size() / 2, disk_busy.end());
  EXPECT_GE(disk_busy[disk_busy.size() / 2], 90) << "the median sample, in percent";
}

// A loader whose workers start again every epoch, over epochs longer than the run: the
// summary says each epoch begins with a wait like the run's start-up, and how much of it the
// workers' start-ups are (persistent_workers' saving); a saved trace's report says it too.
// Workers that persist, or one epoch, hear nothing of it.
TEST(CliSimulateTest, EachEpochsStartIsSaidWhereTheLoadersWorkersStartAgain) {
  const auto simulate = [](const std::string& name, const std::string& fields,
                           const std::string& epochs, const std::string& trace = "") {
    const std::string spec = TempPath(name + ".pbtxt");
    std::ofstream(spec) << R"(source { name: "dataset" range { stop: 1000000 } }
ops { name: "loader" dataloader { batch_size: 8 num_workers: 2 worker_startup: "300ms" )"
                        << fields << R"( getitem { python { duration: "1ms" } } } }
ops { name: "epochs" repeat { )"
                        << epochs << R"( } }
train_step { step_time: "10ms" })";
    return Cli("simulate " + spec + " --duration 2 --no-advice" +
               (trace.empty() ? "" : " --trace " + trace));
  };
  const std::string trace = TempPath("restarting.pstrace");
  const auto restarting = simulate("restarting", "", "count: 90", trace);
  ASSERT_EQ(restarting.exit_code, 0) << restarting.out;
  const std::string said =
      "loader starts its workers again every epoch (no persistent_workers): each of its 90 "
      "epochs begins with a wait like this one, 0.30 s of it their start-ups";
  EXPECT_NE(restarting.out.find(said), std::string::npos) << restarting.out;
  const auto report = Cli("report " + trace);
  EXPECT_NE(report.out.find(said), std::string::npos) << report.out;
  const json j = json::parse(JsonPart(Cli("report " + trace + " --json").out));
  ASSERT_TRUE(j.contains("epoch_start")) << j.dump(2);
  EXPECT_EQ(j["epoch_start"]["loader"], "loader");
  EXPECT_EQ(j["epoch_start"]["epochs"], 90);
  EXPECT_NEAR(j["epoch_start"]["worker_startups_s"].get<double>(), 0.3, 0.01);
  EXPECT_GE(j["epoch_start"]["wait_s"].get<double>(), 0.3);
  const auto endless = simulate("endless", "", "");
  EXPECT_NE(endless.out.find("each epoch begins with a wait like this one"), std::string::npos)
      << endless.out;
  // Made anew each epoch, persistent_workers keeps nothing: the loader must be made once.
  const auto remade = simulate("remade", "persistent_workers: true made_each_epoch: true", "");
  EXPECT_NE(remade.out.find("loader starts its workers again every epoch (made anew each "
                            "epoch)"),
            std::string::npos)
      << remade.out;
  EXPECT_NE(remade.out.find("which a loader made once, before the epochs' loop, with "
                            "persistent_workers=True, pays once"),
            std::string::npos)
      << remade.out;
  for (const auto& [fields, epochs] :
       {std::pair<std::string, std::string>{"persistent_workers: true", "count: 90"},
        {"", "count: 1"}}) {
    const auto quiet = simulate("quiet", fields, epochs);
    ASSERT_EQ(quiet.exit_code, 0) << quiet.out;
    EXPECT_EQ(quiet.out.find("begins with a wait like this one"), std::string::npos)
        << fields << " " << epochs << "\n"
        << quiet.out;
  }
}

// A disk named for a pipeline that reads nothing from it (a map of TensorFlow ops on a range)
// is a setting that changed nothing: the summary says so, and does not where the files are
// read from it.
TEST(CliSimulateTest, ADiskNothingReadsIsSaidToHaveChangedNothing) {
  const std::string spec = TempPath("unread_disk.pbtxt");
  std::ofstream(spec) << R"(source { name: "paths" range { stop: 1000000 } }
ops { name: "load" map { fn { cpu_work { duration: "1ms" } } } }
train_step { step_time: "1ms" }
storage { kind: hdd })";
  const auto unread = Cli("simulate " + spec + " --duration 1 --no-advice");
  ASSERT_EQ(unread.exit_code, 0) << unread.out;
  EXPECT_NE(unread.out.find("nothing was read from it"), std::string::npos) << unread.out;
  const auto read = Cli("simulate " + Pipeline("questions/distiller_202_imagenet_hdd.py") +
                        " --duration 30 --no-advice");
  ASSERT_EQ(read.exit_code, 0) << read.out;
  EXPECT_NE(read.out.find("storage busy"), std::string::npos) << read.out;
  EXPECT_EQ(read.out.find("nothing was read from it"), std::string::npos) << read.out;
}

TEST(CliSimulateTest, BadModelsAreNamed) {
  const std::string model = TempPath("bad_model.json");
  std::ofstream(model) << R"({"ops": {"decode": {"cpu": {"mean_ns": "slow"}}}})";
  const auto r = Cli("simulate " + Pipeline("input_bound_demo.pbtxt") + " --model " + model);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(model + ".ops.decode.cpu.mean_ns: expected a number"), std::string::npos)
      << r.out;
  const auto missing =
      Cli("simulate " + Pipeline("input_bound_demo.pbtxt") + " --model /no/such.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("/no/such.json"), std::string::npos);
  // A model written by hand, naming no origin, is named by its file.
  const std::string slower = TempPath("slower_decode.json");
  std::ofstream(slower) << R"({"ops": {"decode": {"cpu": {"mean_ns": 9e6}}}})";
  const auto named =
      Cli("simulate " + Pipeline("input_bound_demo.pbtxt") + " --model " + slower + " --no-advice");
  EXPECT_NE(named.out.find("simulated on the slower_decode.json cost model"), std::string::npos)
      << named.out;
}

TEST(CliSimulateTest, CalibrateFitsARecordedRun) {
  const std::string trace = TempPath("recorded.pstrace");
  const std::string model = TempPath("fitted.json");
  ASSERT_EQ(
      Cli("run " + Pipeline("benchmarks/mixed_cpu_io.pbtxt") + " --duration 2 --trace " + trace)
          .exit_code,
      0);
  const auto r = Cli("calibrate " + trace + " --out " + model + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json j = json::parse(JsonPart(r.out));
  // fetch waits 4 ms without computing; decode computes 1 ms. A wait never ends early, and
  // on a busy machine its thread wakes late (5.0 ms measured under ctest -j2 on 2 cores).
  const json& fetch = j["ops"]["fetch"];
  const json& decode = j["ops"]["decode"];
  EXPECT_GT(fetch["wait"]["mean_ns"].get<double>(), 3.5e6);
  EXPECT_LT(fetch["wait"]["mean_ns"].get<double>(), 8e6);
  EXPECT_LT(fetch["cpu_per_row"]["mean_ns"].get<double>() + fetch["cpu"]["mean_ns"].get<double>(),
            1e6);
  const double decode_cpu =
      decode["cpu_per_row"]["mean_ns"].get<double>() + decode["cpu"]["mean_ns"].get<double>();
  EXPECT_GT(decode_cpu, 0.8e6);
  EXPECT_LT(decode_cpu, 2e6);
  EXPECT_NEAR(j["step"]["mean_ns"].get<double>(), 8e6, 0.5e6);
  // The loop waits for each step (one in flight) and resumes a little late.
  EXPECT_GT(j["timer_wake"]["mean_ns"].get<double>(), 1e3);
  EXPECT_LT(j["timer_wake"]["mean_ns"].get<double>(), 5e6);
  // The run's first step came later than its costs give (threads start, the device opens),
  // by well under a second.
  EXPECT_GE(j["startup_ns"].get<int64_t>(), 0);
  EXPECT_LT(j["startup_ns"].get<int64_t>(), 1'000'000'000);
  const auto sim = Cli("simulate " + Pipeline("benchmarks/mixed_cpu_io.pbtxt") + " --model " +
                       model + " --json");
  ASSERT_EQ(sim.exit_code, 0) << sim.out;
  EXPECT_EQ(json::parse(JsonPart(sim.out))["simulated"]["cost_model"], trace);
}

// A start-up that takes much of a short run leaves few steps to grade on: the summary says
// so, and says nothing of it when the run is long enough.
TEST(CliSimulateTest, AStartUpThatTakesMuchOfTheRunIsSaidToLeaveFewSteps) {
  const std::string spec = TempPath("slow_start.pbtxt");
  std::ofstream(spec) << R"(name: "slow_start"
source { name: "dataset" range { stop: 100000 } }
ops { name: "loader" dataloader { batch_size: 8 num_workers: 2 worker_startup: "1s"
      getitem { python { duration: "1ms" } } } }
ops { name: "epochs" repeat {} }
train_step { step_time: "10ms" }
)";
  const auto shortly = Cli("simulate " + spec + " --duration 2 --no-advice");
  ASSERT_EQ(shortly.exit_code, 0) << shortly.out;
  EXPECT_NE(shortly.out.find("of the run: these figures rest on "), std::string::npos)
      << shortly.out;
  const auto longer = Cli("simulate " + spec + " --duration 30 --no-advice");
  ASSERT_EQ(longer.exit_code, 0) << longer.out;
  EXPECT_EQ(longer.out.find("these figures rest on"), std::string::npos) << longer.out;
}

// tensorflow#47687: a shuffle of 10000 batches after the augmentation fills for minutes
// before the first batch, then the data ends at once. The steady figures leave the start-up
// out (5 steps/s, not input-bound); the summary gives the whole run's rate beside them, as a
// longer run has no more steps to measure.
TEST(CliSimulateTest, ARunThatEndsSoonAfterALongStartUpGivesItsWholeRate) {
  const std::string spec = TempPath("late_first_batch.pbtxt");
  std::ofstream(spec) << R"(name: "late_first_batch"
source { name: "images" range { stop: 400 } }
ops { name: "augment" map { fn { cpu_work { duration: "50ms" } } num_parallel_calls: 2 } }
ops { name: "batch" batch { batch_size: 8 } }
ops { name: "shuffle" shuffle { buffer_size: 10000 } }
train_step { step_time: "100ms" }
)";
  const auto run = Cli("simulate " + spec + " --duration 60 --no-advice");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  // 400 images of 50 ms on two cores: 10 s before the shuffle's buffer holds the data's
  // end; then 50 steps of 100 ms.
  EXPECT_NE(run.out.find("over the whole run, start-up included, 50 steps in 15."),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("a longer --duration measures more"), std::string::npos) << run.out;

  // The tf.data guide's cached program: five epochs of three elements, the first made by a
  // 30 ms map, the others from the cache. The graded epochs are the cached ones; the whole
  // run's rate, its first epoch counted, is said beside them.
  const std::string cached = TempPath("guide_cache.pbtxt");
  std::ofstream(cached) << R"(name: "guide_cache"
source { name: "items" range { stop: 3 } }
ops { name: "work" map { fn { io_wait { duration: "30ms" } } } }
ops { name: "keep" cache {} }
ops { name: "epochs" repeat { count: 5 } }
train_step { step_time: "10ms" }
)";
  const auto guide = Cli("simulate " + cached + " --no-advice");
  ASSERT_EQ(guide.exit_code, 0) << guide.out;
  EXPECT_NE(guide.out.find("graded over "), std::string::npos) << guide.out;
  // 3 elements of 30 ms and their 10 ms steps, then 12 cached steps of 10 ms: 0.24 s.
  EXPECT_NE(guide.out.find("these figures leave out 50% of the run (its start-up "),
            std::string::npos)
      << guide.out;
  EXPECT_NE(guide.out.find("over the whole run, start-up included, 15 steps in 0.24 s"),
            std::string::npos)
      << guide.out;
}

// keras#6406: steps_per_epoch given as the sample count makes each epoch 91,234 steps, 32
// times the data; a run of seconds never reaches an epoch's end, so the summary says how
// long one takes at the run's rate (the asker's progress bar: an ETA of 10,721 s).
TEST(CliSimulateTest, AnEpochLongerThanTheRunIsSaidInTime) {
  const std::string spec = TempPath("long_epoch.pbtxt");
  std::ofstream(spec) << R"(name: "long_epoch"
source { name: "indices" range { stop: 91234 } }
ops { name: "fit" keras_fit { workers: 1 getitem { python { duration: "1ms" } } } }
ops { name: "fit_epochs" repeat { count: 10 } }
train_step { step_time: "117ms" }
)";
  const auto run = Cli("simulate " + spec + " --duration 5 --no-advice --json");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(json::parse(JsonPart(run.out))["epoch_steps"], 91234) << run.out;
  const auto text = Cli("simulate " + spec + " --duration 5 --no-advice");
  EXPECT_NE(text.out.find("an epoch is 91234 steps: 3.0 h at this rate"), std::string::npos)
      << text.out;
}

TEST(CliSimulateTest, CalibrateNeedsAPipescopeRecording) {
  const auto r = Cli("calibrate " + std::string(PIPESCOPE_SOURCE_DIR) +
                     "/tests/trace/data/pytorch_input_bound.json --out " + TempPath("x.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("has no pipeline spec"), std::string::npos) << r.out;
}

TEST(CliSimulateTest, AutotuneAsksTheSimulatorWhatIf) {
  const auto r = Cli("autotune " + Pipeline("input_bound_demo.pbtxt") + " --simulate --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json j = json::parse(JsonPart(r.out));
  EXPECT_EQ(j["measured_by"], "simulator");
  EXPECT_GE(j["knobs"]["decode.num_parallel_calls"].get<int>(), 2);
  EXPECT_GT(j["steps_per_s_after"].get<double>(), 1.3 * j["steps_per_s_before"].get<double>());
}

// A DataLoader whose 10 workers each take 1.6 s a batch on 16 cores: the tuner gives its
// workers the cores, as it gives a map threads (its single +1 steps were lost in the bursts
// of a few slow batches), and agrees with the advice's 6.1 -> 9.7 steps/s.
TEST(CliSimulateTest, AutotuneGivesADataLoaderTheWorkersItsCoresAllow) {
  const std::string spec = TempPath("pipescope_loader16.pbtxt");
  std::ofstream(spec) << R"(name: "loader16"
    budget { cpu_cores: 16 }
    source { name: "dataset" range { stop: 20000 } }
    ops { name: "loader" dataloader { batch_size: 32 num_workers: 10
          getitem { python { duration: "50ms" } } } }
    ops { name: "epochs" repeat {} }
    train_step { step_time: "50ms" })";
  const auto r = Cli("autotune " + spec + " --simulate");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("round 1: loader.num_workers=16 (predicted limit: cores)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("loader.num_workers: 10 -> 16"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipescope::testing

namespace pipescope::testing {
namespace {

// A DataLoader's shuffle=True is kept in the spec but neither clock applies it: --print says
// so beside the elements it prints, on both clocks, where it printed them in index order
// without a word; a loader that does not shuffle prints no note.
TEST(CliSimulateTest, PrintSaysALoadersShuffleIsNotInTheOrderPrinted) {
  const std::string spec = TempPath("shuffled_loader.pbtxt");
  const auto write = [&](const char* shuffle) {
    std::ofstream(spec) << "source { name: \"dataset\" range { stop: 20 } }\n"
                           "ops { name: \"loader\" dataloader { batch_size: 5 "
                           "getitem { python { duration: \"3us\" } } "
                        << shuffle << " } }\ntrain_step { step_time: \"0ms\" }\n";
  };
  write("shuffle: true");
  for (const char* command : {"simulate ", "run "}) {
    const auto printed = Cli(command + spec + " --print 4 --duration 1" +
                             (std::string(command) == "simulate " ? " --no-advice" : ""));
    ASSERT_EQ(printed.exit_code, 0) << printed.out;
    EXPECT_NE(printed.out.find("loader's shuffle=True is not applied to the order printed"),
              std::string::npos)
        << command << printed.out;
  }
  write("");
  const auto plain = Cli("simulate " + spec + " --print 4 --duration 1 --no-advice");
  EXPECT_EQ(plain.out.find("is not applied to the order printed"), std::string::npos) << plain.out;
}

}  // namespace
}  // namespace pipescope::testing

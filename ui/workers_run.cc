#include "ui/workers_run.h"

#include <QMessageBox>
#include <atomic>
#include <cmath>
#include <future>
#include <mutex>
#include <vector>

#include "app/session/workers.h"
#include "instrumentation/trace/import/host_merge.h"
#include "ui/document_files.h"
#include "ui/modal_progress.h"

namespace pipescope::ui {

std::optional<WorkersView> RunAsWorkers(QWidget* window, const spec::PipelineSpec& spec,
                                        int workers, double seconds) {
  // Each worker's pipeline while it runs, so that Cancel stops them all.
  std::mutex running_mu;
  std::vector<engine::Pipeline*> running(static_cast<size_t>(workers), nullptr);
  std::atomic<bool> cancelled{false};
  auto work = std::async(std::launch::async, [&] {
    return session::RunWorkersRecorded(spec, workers, [&](int w) {
      session::RecordedRunOptions o;
      o.run.duration_ns = static_cast<int64_t>(seconds * 1e9);
      o.on_pipeline = [&, w](engine::Pipeline* p) {
        const std::lock_guard lock(running_mu);
        running[static_cast<size_t>(w)] = p;
        if (p != nullptr && cancelled) p->Cancel();
      };
      return o;
    });
  });
  const QString doing = QString("Running %1 workers for %2 s...").arg(workers).arg(seconds);
  ModalProgress progress(window, "Run as Workers", doing, 0, 0);
  auto run = progress.Await(
      work, [](QProgressDialog&) {},
      [&] {
        cancelled = true;
        const std::lock_guard lock(running_mu);
        for (engine::Pipeline* p : running) {
          if (p != nullptr) p->Cancel();
        }
      });
  if (cancelled) return std::nullopt;
  const engine::Status status =
      !run.ok() ? run.status() : session::FirstWorkerResult(*run).run_status;
  if (!status.ok()) {
    QMessageBox::warning(window, "Cannot run the workers",
                         QString::fromStdString(status.message()));
    return std::nullopt;
  }

  std::vector<trace::HostTrace> hosts;
  hosts.reserve(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    hosts.push_back({"worker" + std::to_string(w), run->workers[static_cast<size_t>(w)].model});
  }
  trace::MergedHosts merged = trace::MergeHosts(hosts);
  WorkersView view;
  view.model = std::move(merged.model);
  view.title = QString("%1: %2 workers").arg(QString::fromStdString(spec.name())).arg(workers);
  view.in_all = QString("%1 steps/s in all").arg(run->total_steps_per_s, 0, 'f', 1);
  view.verdict = QString(
                     "%1 workers on this machine: %2; a synchronous job (one all-reduce a "
                     "step) %3 steps/s, each step waiting for worker%4, the slowest.\n")
                     .arg(workers)
                     .arg(view.in_all)
                     .arg(run->synchronous_steps_per_s, 0, 'f', 1)
                     .arg(run->slowest);
  view.verdict += HostsVerdict(merged);
  return view;
}

}  // namespace pipescope::ui

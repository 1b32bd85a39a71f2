#include "gui/scenario_runner.hpp"

#include <QtConcurrent/QtConcurrent>

#include <chrono>

namespace cs::gui {
namespace {

/// Keeps every span (the same stream the Perfetto TraceWriter receives) and counts them for the progress bar.
class SpanRecorder final : public ReplayObserver {
 public:
  SpanRecorder(std::vector<Span>& spans, std::atomic<std::uint64_t>& seen) : spans_(spans), seen_(seen) {}
  void on_span(const Span& span) override {
    spans_.push_back(span);
    seen_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  std::vector<Span>& spans_;
  std::atomic<std::uint64_t>& seen_;
};

}  // namespace

ScenarioRunner::ScenarioRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &ScenarioRunner::on_done);
}

ScenarioRunner::~ScenarioRunner() {
  cancel();
  watcher_.waitForFinished();
}

bool ScenarioRunner::start(Scenario sc, std::shared_ptr<RunRecord> record) {
  if (busy()) return false;
  cancel_ = false;
  spans_seen_ = 0;
  watcher_.setFuture(QtConcurrent::run([this, sc = std::move(sc), record]() mutable -> Outcome {
    Outcome out;
    try {
      SpanRecorder recorder(record->spans, spans_seen_);
      const auto t0 = std::chrono::steady_clock::now();
      record->result = api::run(sc, api::RunOptions{.observers = {&recorder}, .cancel = &cancel_});
      record->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      record->json = to_json(sc, record->result);
      record->scenario = std::move(sc);
      out.record = record;
    } catch (const api::Cancelled&) {
      out.cancelled = true;
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    return out;
  }));
  return true;
}

void ScenarioRunner::cancel() { cancel_ = true; }

bool ScenarioRunner::busy() const { return watcher_.isRunning(); }

void ScenarioRunner::wait() { watcher_.waitForFinished(); }

void ScenarioRunner::on_done() {
  const Outcome out = watcher_.result();
  if (out.record) {
    out.record->finished = QDateTime::currentDateTime();
    Q_EMIT finished(out.record);
  } else if (out.cancelled) {
    Q_EMIT cancelled();
  } else {
    Q_EMIT failed(out.error);
  }
}

}  // namespace cs::gui

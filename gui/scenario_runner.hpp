// Runs a scenario off the GUI thread through the public API (cs::api::run), with a cancel flag and a count of
// the spans replayed so far for the progress indicator. One run at a time.
#pragma once

#include <QFutureWatcher>
#include <QObject>

#include <atomic>
#include <memory>

#include "gui/run_record.hpp"

namespace cs::gui {

class ScenarioRunner : public QObject {
  Q_OBJECT

 public:
  explicit ScenarioRunner(QObject* parent = nullptr);
  ~ScenarioRunner() override;

  /// Starts simulating `sc` (already loaded and checked); `record` carries the text and file it came from.
  /// Returns false when a run is in flight.
  bool start(Scenario sc, std::shared_ptr<RunRecord> record);
  /// Asks the run in flight to stop; it then reports cancelled().
  void cancel();
  [[nodiscard]] bool busy() const;
  /// Spans the run in flight has produced (the replay's progress).
  [[nodiscard]] std::uint64_t spans_seen() const noexcept { return spans_seen_.load(std::memory_order_relaxed); }
  /// Blocks until the run in flight ends (tests, --screenshot); its signal is still delivered by the event loop.
  void wait();

 Q_SIGNALS:
  void finished(cs::gui::RunRecordPtr record);
  void failed(const QString& message);
  void cancelled();

 private:
  struct Outcome {
    std::shared_ptr<RunRecord> record;
    QString error;
    bool cancelled = false;
  };
  void on_done();

  QFutureWatcher<Outcome> watcher_;
  std::atomic<bool> cancel_{false};
  std::atomic<std::uint64_t> spans_seen_{0};
};

}  // namespace cs::gui

// The "Schedule" tab: `clustersim schedule` for a schedule file (cs::api::schedule on a worker thread): a Gantt of
// the jobs and service replicas over the cluster's GPUs (one row per GPU, grouped by node; co-located replicas
// hatched over the job they share with), and under it the GPUs allocated and busy and the facility power, hour by
// hour, against the provisioned circuit. A table lists each job and service with what it got. Nothing here
// schedules: it only calls the public API.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include <optional>

#include "sim/api/clustersim.hpp"

class QChartView;
class QLabel;
class QPushButton;
class QTableWidget;

namespace cs::gui {

/// The Gantt itself: intervals of a schedule's result painted over time (x) and GPUs (y).
class GanttChart : public QWidget {
 public:
  explicit GanttChart(QWidget* parent = nullptr);
  void set_run(const ScheduleRun* run);
  [[nodiscard]] QSize sizeHint() const override { return {900, 320}; }
  /// The colour a job or service is drawn in (stable: a hash of its name).
  [[nodiscard]] static QColor colour_of(const std::string& name);

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  const ScheduleRun* run_ = nullptr;
};

class ScheduleView : public QWidget {
  Q_OBJECT

 public:
  explicit ScheduleView(QWidget* parent = nullptr);
  ~ScheduleView() override;

  /// Starts simulating the schedule file `path`. False, with the reason in the message line, while one runs.
  bool open(const QString& path);
  [[nodiscard]] bool busy() const;
  /// Blocks until the run in flight ends and is shown (tests, --screenshot).
  void wait();
  [[nodiscard]] const std::optional<ScheduleRun>& run() const { return run_; }
  [[nodiscard]] QString summary_text() const;
  [[nodiscard]] QTableWidget* table() const { return table_; }
  [[nodiscard]] QChartView* hours_chart() const { return hours_; }

 Q_SIGNALS:
  void open_requested();
  void schedule_ended();

 private:
  struct Outcome {
    std::optional<ScheduleRun> run;
    QString error;
  };
  void on_done();
  void show_run();

  std::optional<ScheduleRun> run_;
  QFutureWatcher<Outcome> watcher_;
  QPushButton* open_ = nullptr;
  QLabel* summary_ = nullptr;
  GanttChart* gantt_ = nullptr;
  QChartView* hours_ = nullptr;
  QTableWidget* table_ = nullptr;
};

}  // namespace cs::gui

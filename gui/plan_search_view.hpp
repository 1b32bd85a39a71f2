// The "Plan search" tab: searches the training plan of the scenario in the editor (cs::api::search_plans on a
// worker thread, with a progress bar and Cancel), shows the replayed ranking - step time, MFU, memory per GPU and
// why each plan lost to the one above - with a summary of the search, and writes the chosen plan's settings
// (api::plan_settings) into the scenario document. Nothing here searches: it only calls the public API.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <cstddef>

#include "sim/api/clustersim.hpp"

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace cs::gui {

class ScenarioDocument;

class PlanSearchView : public QWidget {
  Q_OBJECT

 public:
  /// Searches `doc` (read when the search starts) and writes the chosen plan into it; `doc` outlives the view.
  explicit PlanSearchView(ScenarioDocument& doc, QWidget* parent = nullptr);
  ~PlanSearchView() override;

  /// Loads the document (`parallelism: search` allowed) and starts the search in the background. False, with the
  /// located error in the view's message line, when the scenario does not load or a search is in flight.
  bool start();
  /// Asks the search in flight to stop; the view then says so and keeps the previous ranking.
  void cancel();
  [[nodiscard]] bool busy() const;
  /// Blocks until the search in flight ends and its ranking is shown (tests, --screenshot).
  void wait();
  /// Writes the plan of ranking row `row` (0-based) into the document and emits plan_applied. False when there is
  /// no such row.
  bool use_plan(int row);

  /// Plans replayed in full from the head of the screened ranking.
  void set_top_k(int k);
  [[nodiscard]] const api::PlanRanking& ranking() const { return ranking_; }
  [[nodiscard]] QTableWidget* table() const { return table_; }
  [[nodiscard]] QPushButton* search_button() const { return search_; }
  [[nodiscard]] QPushButton* use_button() const { return use_; }
  /// "Screened N plans in X s ..." after a search; the reason after a failure or cancel.
  [[nodiscard]] QString summary_text() const;
  /// Wall time of the last finished search as the user waited for it (screen, replays, hand-over).
  [[nodiscard]] double last_wall_seconds() const { return wall_s_; }

 Q_SIGNALS:
  /// The plan `description` was written into the document (the forms must reload).
  void plan_applied(const QString& description);
  /// A search finished (ranking shown), failed or was cancelled.
  void search_ended();

 private:
  struct Outcome {
    api::PlanRanking ranking;
    QString error;
    bool cancelled = false;
    double wall_s = 0;
  };
  void on_done();
  void show_ranking();
  void update_controls();

  ScenarioDocument& doc_;
  api::PlanRanking ranking_;
  double wall_s_ = 0;
  QFutureWatcher<Outcome> watcher_;
  std::atomic<bool> cancel_{false};
  std::atomic<std::size_t> done_{0}, total_{0};
  QSpinBox* top_k_ = nullptr;
  QPushButton* search_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QTimer* progress_timer_ = nullptr;
  QLabel* summary_ = nullptr;
  QTableWidget* table_ = nullptr;
  QPushButton* use_ = nullptr;
};

}  // namespace cs::gui

// The "Design" tab: `clustersim design` for the scenario in the editor (cs::api::design on a worker thread):
// every candidate fabric as a point of time to train against network capex, the Pareto front ringed, a table of
// the candidates with why each lost, and the best one's network bill of materials with each price's source.
// Nothing here designs: it only calls the public API.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include "sim/api/clustersim.hpp"

class QChartView;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace cs::gui {

class ScenarioDocument;

class DesignView : public QWidget {
  Q_OBJECT

 public:
  explicit DesignView(ScenarioDocument& doc, QWidget* parent = nullptr);
  ~DesignView() override;

  /// Starts the design of the document's scenario at `gpus` GPUs (0: its own). False, with the reason in the
  /// view's message line, when a design is in flight.
  bool start();
  void set_gpus(int gpus);
  [[nodiscard]] bool busy() const;
  /// Blocks until the design in flight ends and is shown (tests, --screenshot).
  void wait();
  [[nodiscard]] const DesignReport& report() const { return report_; }
  [[nodiscard]] QString summary_text() const;
  [[nodiscard]] QTableWidget* candidates_table() const { return table_; }
  [[nodiscard]] QTableWidget* bom_table() const { return bom_; }

 Q_SIGNALS:
  void design_ended();

 private:
  struct Outcome {
    DesignReport report;
    QString error;
  };
  void on_done();
  void show_report();

  ScenarioDocument& doc_;
  DesignReport report_;
  QFutureWatcher<Outcome> watcher_;
  QPushButton* run_ = nullptr;
  QSpinBox* gpus_ = nullptr;
  QLabel* summary_ = nullptr;
  QChartView* chart_ = nullptr;
  QTableWidget* table_ = nullptr;
  QTableWidget* bom_ = nullptr;
};

}  // namespace cs::gui
